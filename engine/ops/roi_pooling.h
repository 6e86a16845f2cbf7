// ROIPooling (MXNet's src/operator/roi_pooling.cc): max pooling of data (N, C, H, W) over each region
// of interest [batch index, x1, y1, x2, y2] (rois (R, 5), image coordinates) into (R, C, pooled_h,
// pooled_w). Each ROI is scaled by spatial_scale and rounded onto the map's grid; output bin (ph, pw)
// is the maximum of its cells (ops/rcnn_math.h), 0 where the bin lies off the map or the batch index
// is outside the batch, and -FLT_MAX where every cell is NaN or -inf (MXNet starts from -FLT_MAX).
#pragma once

#include <cstdint>

#include "ops/op.h"
#include "ops/rcnn_math.h"

namespace qv {

// pooled_size and spatial_scale, required and checked as MXNet does (ROIAlign takes them too).
struct RoiPoolingParams {
  int64_t pooled_h = 1, pooled_w = 1;
  float spatial_scale = 1.f;
  static RoiPoolingParams Parse(const Attrs& attrs);
};

// The (channels, pooled_h, pooled_w) output of ROI `roi` over `data` (batch, channels, height, width),
// channels [c0, c1) of it.
void RoiPoolOne(const RoiPoolingParams& p, const float* data, int64_t batch, int64_t channels, int64_t height,
                int64_t width, const float* roi, int64_t c0, int64_t c1, float* out);

}  // namespace qv
