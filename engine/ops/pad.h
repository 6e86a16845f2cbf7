// Pad attributes and geometry (MXNet 1.9.1, pad-inl.h / pad.cc): 4-D or 5-D data padded on its
// spatial axes only (pad_width's first four entries, for N and C, must be 0), with a constant
// (constant_value), the edge value repeated (edge), or the values mirrored about the edge, the edge
// itself not repeated (reflect, which MXNet allows only for pads smaller than the axis).
#pragma once

#include <vector>

#include "ops/op.h"

namespace qv {

struct PadParams {
  enum Mode { kConstant, kEdge, kReflect };
  Mode mode = kConstant;
  std::vector<int64_t> pad_width;  // (before, after) per axis
  float constant_value = 0;

  static PadParams Parse(const Attrs& attrs);
  // The output shape for `data`; throws Error(Status::kShape) naming the node when they do not fit.
  Shape Resolve(const Attrs& attrs, const Shape& data) const;
  // The input index output index `i` of an axis of `size` with `before` padding reads, or -1 for the
  // constant.
  int64_t Source(int64_t i, int64_t size, int64_t before) const;
};

}  // namespace qv
