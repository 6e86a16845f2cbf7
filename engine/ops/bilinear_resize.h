// _contrib_BilinearResize2D: NCHW planes resized by bilinear interpolation, MXNet 1.9.1's arithmetic.
// Output size by `mode`: "size" (height/width, or the input's scaled by scale_height/scale_width),
// "odd_scale", "like" (the second input's height and width), "to_even_down", "to_even_up",
// "to_odd_down", "to_odd_up". align_corners (default true) maps output y to input y * (H - 1) / (oh - 1);
// false to (y + 0.5) * H / oh - 0.5, clamped at 0; a 1-pixel output reads row 0 either way.
#pragma once

#include <vector>

#include "ops/op.h"

namespace qv {

struct BilinearResizeGeometry {
  int64_t planes = 0, h = 0, w = 0, oh = 0, ow = 0;
  bool align_corners = true;
  bool like = false;  // a second input that gives only its shape
};
BilinearResizeGeometry ResolveBilinearResize(const Attrs& attrs, const std::vector<Shape>& in);

// Where output index i reads along an axis of `in` positions resized to `out`: the lower input index,
// whether a next one exists (0 at the last index), and the next one's weight.
struct BilinearTap {
  int64_t index = 0;
  int64_t step = 0;
  float lambda = 0;
};
BilinearTap BilinearSource(int64_t i, int64_t in, int64_t out, bool align_corners);
// The scale BilinearSource multiplies by: (in - 1) / (out - 1) or in / out in float, 0 when out is 1.
float BilinearScale(int64_t in, int64_t out, bool align_corners);

}  // namespace qv
