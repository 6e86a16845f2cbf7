// Convolution attributes, shared by shape inference and the kernels.
#pragma once

#include <string>
#include <vector>

#include "ops/op.h"
#include "ops/post_ops.h"

namespace qv {

struct ConvolutionParams {
  // 2 (NCHW) or 3 (NCDHW) values each.
  std::vector<int64_t> kernel, stride, dilate, pad;
  int64_t num_filter = 0;
  int64_t num_group = 1;
  bool no_bias = false;
  // Fused by graph passes, in execution order; a kSum adds the extra "residual" input.
  std::vector<PostOp> post_ops;

  static ConvolutionParams Parse(const Attrs& attrs);
  bool has_sum() const;
};

}  // namespace qv
