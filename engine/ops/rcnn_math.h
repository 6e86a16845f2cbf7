// Plain functions of the R-CNN operators (ops/proposal.h, ops/roi_pooling.h) that both backends
// compute with one definition: MXNet's float-to-int casts and ROIPooling's window and bins.
#pragma once

#include <cmath>
#include <cstdint>

#include "ops/host_device.h"

namespace qv {

// (int)v as x86 computes it, which is what MXNet's casts give: truncation, INT32_MIN for NaN and
// out of range (where C++ leaves it undefined).
QV_HOST_DEVICE inline int32_t TruncToInt32(float v) {
  return v > -2147483904.f && v < 2147483648.f ? static_cast<int32_t>(v) : INT32_MIN;
}

// One ROI of ROIPooling (MXNet's src/operator/roi_pooling.cc): the map area it covers, on the map's
// grid, rounded half away from zero; an ROI under one cell counts as one cell.
struct RoiPoolingWindow {
  int64_t start_h = 0, start_w = 0;
  float bin_h = 0, bin_w = 0;  // ROI cells per output bin
  int64_t image = 0;           // -1: the batch index is outside the batch (every bin is 0)
};

// `roi` is [batch index, x1, y1, x2, y2] in image coordinates.
QV_HOST_DEVICE inline RoiPoolingWindow RoiPoolingWindowOf(const float* roi, float spatial_scale, int64_t pooled_h,
                                                          int64_t pooled_w, int64_t batch) {
  RoiPoolingWindow r;
  r.start_w = TruncToInt32(roundf(roi[1] * spatial_scale));
  r.start_h = TruncToInt32(roundf(roi[2] * spatial_scale));
  const int64_t end_w = TruncToInt32(roundf(roi[3] * spatial_scale));
  const int64_t end_h = TruncToInt32(roundf(roi[4] * spatial_scale));
  const int64_t image = TruncToInt32(roi[0]);
  r.image = image < 0 || image >= batch ? -1 : image;
  const int64_t height = end_h - r.start_h + 1 > 1 ? end_h - r.start_h + 1 : 1;
  const int64_t width = end_w - r.start_w + 1 > 1 ? end_w - r.start_w + 1 : 1;
  r.bin_h = static_cast<float>(height) / static_cast<float>(pooled_h);
  r.bin_w = static_cast<float>(width) / static_cast<float>(pooled_w);
  return r;
}

// Clamps v into [0, hi].
QV_HOST_DEVICE inline int64_t ClampToMap(int64_t v, int64_t hi) { return v < 0 ? 0 : v > hi ? hi : v; }

// Output bin (ph, pw) reads rows [*h0, *h1) and columns [*w0, *w1) of a height x width map: bin p
// spans [floor(p * bin), ceil((p + 1) * bin)) cells from the window's start, clamped to the map.
// Empty (h1 <= h0 or w1 <= w0) where the ROI lies off the map: the bin is 0.
QV_HOST_DEVICE inline void RoiPoolingBin(const RoiPoolingWindow& r, int64_t ph, int64_t pw, int64_t height,
                                         int64_t width, int64_t* h0, int64_t* h1, int64_t* w0, int64_t* w1) {
  *h0 = ClampToMap(TruncToInt32(floorf(static_cast<float>(ph) * r.bin_h)) + r.start_h, height);
  *h1 = ClampToMap(TruncToInt32(ceilf(static_cast<float>(ph + 1) * r.bin_h)) + r.start_h, height);
  *w0 = ClampToMap(TruncToInt32(floorf(static_cast<float>(pw) * r.bin_w)) + r.start_w, width);
  *w1 = ClampToMap(TruncToInt32(ceilf(static_cast<float>(pw + 1) * r.bin_w)) + r.start_w, width);
}

}  // namespace qv
