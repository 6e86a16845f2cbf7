// L2Normalization: x / sqrt(sum(x^2) + eps), the sum taken per sample over every other axis
// ("instance", the default), over axis 1 ("channel") or over the axes after 1 ("spatial").
#pragma once

#include "ops/op.h"

namespace qv {

// The data viewed as (outer, axis, inner); the sum runs along `axis`.
struct L2NormGeometry {
  int64_t outer = 1, axis = 1, inner = 1;
  float eps = 1e-10f;
};
L2NormGeometry ResolveL2Norm(const Attrs& attrs, const Shape& x);

}  // namespace qv
