// Operations that graph passes fuse into the node producing their input (a backend's fused epilogue:
// oneDNN's post-ops, cuDNN's fused activations). A node carries them as a typed list (Node::post_ops),
// which its kernel reads through Attrs::post_ops().
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ops/attrs.h"

namespace qv {

struct PostOp {
  enum Kind { kRelu, kLeakyRelu, kClip, kGelu, kSum };  // kGelu: MXNet's erf form (LeakyReLU act_type gelu)
  Kind kind = kRelu;
  float alpha = 0.f;  // kLeakyRelu: the slope; kClip: the lower bound
  float beta = 0.f;   // kClip: the upper bound

  bool operator==(const PostOp& o) const { return kind == o.kind && alpha == o.alpha && beta == o.beta; }
};

// The post-op that an element-wise node (relu, Activation relu, clip, LeakyReLU leaky or gelu) amounts to, or
// nothing if it has none. Attribute errors are left to the node's own operator.
std::optional<PostOp> AsPostOp(const std::string& op, const Attrs& attrs);

// Whether a residual sum is among `post_ops` (its node then takes the residual as its last input).
bool HasSum(const std::vector<PostOp>& post_ops);

}  // namespace qv
