// Convolution attributes, shared by shape inference and the kernels.
#pragma once

#include <string>
#include <vector>

#include "ops/op.h"

namespace qv {

struct ConvolutionParams {
  std::vector<int64_t> kernel, stride, dilate, pad;
  int64_t num_filter = 0;
  int64_t num_group = 1;
  bool no_bias = false;
  // Fused by graph passes: "relu" and "sum" (adds the extra "residual" input) in execution order.
  std::vector<std::string> post_ops;

  static ConvolutionParams Parse(const Attrs& attrs);
  bool has_sum() const;
};

// Attribute under which graph passes record fused post-ops ("relu,sum,relu").
constexpr const char* kPostOpsAttr = "__qv_post_ops__";
std::vector<std::string> ParsePostOps(const Attrs& attrs);

}  // namespace qv
