// Pooling attributes and output geometry.
#pragma once

#include <vector>

#include "ops/op.h"

namespace qv {

struct PoolingParams {
  enum Type { kMax, kAvg, kSum };
  Type type = kMax;
  bool global = false;
  bool full_convention = false;  // "full": ceil when sizing the output; "valid": floor
  bool count_include_pad = true;
  std::vector<int64_t> kernel, stride, pad;  // 2 (NCHW) or 3 (NCDHW) values each

  static PoolingParams Parse(const Attrs& attrs);
  // The output shape; for global pooling also fills in kernel = input size, stride 1, pad 0 (as many
  // values as the input has spatial axes).
  Shape Resolve(const Attrs& attrs, const Shape& input);
};

}  // namespace qv
