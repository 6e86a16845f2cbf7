// _contrib_AdaptiveAvgPooling2D: NCHW planes averaged into an oh x ow grid whose cells MXNet 1.9.1
// sizes per output index i as input rows floor(i H / oh) .. ceil((i + 1) H / oh) - 1 (columns
// alike), so neighbouring cells overlap when H is not a multiple of oh.
#pragma once

#include "ops/op.h"

namespace qv {

struct AdaptivePoolGeometry {
  int64_t planes = 0, h = 0, w = 0, oh = 0, ow = 0;
};
// output_size: absent, None or () gives 1 x 1; one integer a square; a pair (height, width).
AdaptivePoolGeometry ResolveAdaptiveAvgPool(const Attrs& attrs, const Shape& x);

// The input range [begin, end) of output index i along an axis of `in` positions pooled to `out`.
inline int64_t AdaptiveCellBegin(int64_t i, int64_t in, int64_t out) { return i * in / out; }
inline int64_t AdaptiveCellEnd(int64_t i, int64_t in, int64_t out) { return ((i + 1) * in + out - 1) / out; }

}  // namespace qv
