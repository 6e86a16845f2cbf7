// Operations that graph passes fuse into the node producing their input (oneDNN post-ops). They are
// recorded in the node's attributes as text, "relu,sum,clip:0:6", so that a rewritten graph is still
// a plain attribute map.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ops/attrs.h"

namespace qv {

struct PostOp {
  enum Kind { kRelu, kLeakyRelu, kClip, kSum };
  Kind kind = kRelu;
  float alpha = 0.f;  // kLeakyRelu: the slope; kClip: the lower bound
  float beta = 0.f;   // kClip: the upper bound

  bool operator==(const PostOp& o) const { return kind == o.kind && alpha == o.alpha && beta == o.beta; }
  // "relu", "leaky:0.1", "clip:0:6", "sum".
  std::string ToString() const;
};

// Attribute under which graph passes record fused post-ops, in execution order.
constexpr const char* kPostOpsAttr = "__qv_post_ops__";
std::vector<PostOp> ParsePostOps(const Attrs& attrs);

// The post-op that an element-wise node (relu, Activation relu, clip, LeakyReLU leaky) amounts to, or
// nothing if it has none. Attribute errors are left to the node's own operator.
std::optional<PostOp> AsPostOp(const std::string& op, const Attrs& attrs);

}  // namespace qv
