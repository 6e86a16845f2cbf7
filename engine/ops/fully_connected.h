#pragma once

#include "ops/op.h"

namespace qv {

struct FullyConnectedParams {
  int64_t num_hidden = 0;
  bool no_bias = false;
  bool flatten = true;  // true: (N, ...) -> (N, num_hidden); false: applies to the last axis
  bool has_sum = false;  // a fused residual sum: the last input is added to the output

  static FullyConnectedParams Parse(const Attrs& attrs);
};

}  // namespace qv
