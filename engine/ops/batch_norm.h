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

  // The per-channel factor inference multiplies by, gamma / sqrt(var + eps) (gamma read as 1 when
  // fix_gamma is set, as MXNet does), in float64.
  double ChannelScale(float gamma, float var) const;
  // Inference as one affine map per channel, y = x * s + t: `channels` scales s (ChannelScale), then
  // `channels` shifts t = beta - mean * s.
  std::vector<float> ScaleShift(const float* gamma, const float* beta, const float* mean, const float* var,
                                int64_t channels) const;
};

}  // namespace qv
