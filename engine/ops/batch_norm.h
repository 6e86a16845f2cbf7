// BatchNorm attributes (inference: always the moving statistics).
#pragma once

#include <string>
#include <vector>

#include "ops/op.h"
#include "ops/post_ops.h"

namespace qv {

struct BatchNormParams {
  double eps = 1e-3;
  bool fix_gamma = true;  // MXNet's default: gamma is treated as 1
  int64_t axis = 1;
  std::vector<PostOp> post_ops;  // a relu when a following ReLU was fused

  static BatchNormParams Parse(const Attrs& attrs);
};

}  // namespace qv
