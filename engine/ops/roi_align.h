// _contrib_ROIAlign(data, rois): per ROI row (image, x1, y1, x2, y2), a pooled_size grid of cells, each the
// mean of bilinear samples of the NCHW feature map (ops/roi_align_math.h has the arithmetic).
#pragma once

#include <string>

#include "ops/op.h"
#include "ops/roi_align_math.h"

namespace qv {

RoiAlignGeometry ResolveRoiAlign(const Attrs& attrs, const Shape& data, const Shape& rois);

// Throws, naming the ROI and its RoiFault (ops/roi_align_math.h), where it has one.
void CheckRoi(const RoiAlignGeometry& g, const float* roi, int64_t index, const std::string& where);

}  // namespace qv
