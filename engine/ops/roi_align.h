// _contrib_ROIAlign(data, rois): per ROI row (image, x1, y1, x2, y2), a pooled_size grid of cells, each the
// mean of bilinear samples of the NCHW feature map (ops/roi_align_math.h has the arithmetic).
#pragma once

#include <string>

#include "ops/op.h"
#include "ops/roi_align_math.h"

namespace qv {

RoiAlignGeometry ResolveRoiAlign(const Attrs& attrs, const Shape& data, const Shape& rois);

// Throws, naming the ROI, where MXNet's kernel would fail or read outside the data: an image index past the
// batch, a coordinate that is not finite, or (aligned) an extent that is not positive.
void CheckRoi(const RoiAlignGeometry& g, const float* roi, int64_t index, const std::string& where);

}  // namespace qv
