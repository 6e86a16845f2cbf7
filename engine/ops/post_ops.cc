#include "ops/post_ops.h"

#include <algorithm>

#include "common/error.h"
#include "ops/clip.h"
#include "ops/leaky_relu.h"

namespace qv {

std::optional<PostOp> AsPostOp(const std::string& op, const Attrs& attrs) {
  PostOp post;
  if (op == "relu" || (op == "Activation" && attrs.GetString("act_type", "") == "relu")) return post;
  try {
    if (op == "clip") {
      const ClipBounds b = ParseClip(attrs);
      post.kind = PostOp::kClip;
      post.alpha = b.lo;
      post.beta = b.hi;
      return post;
    }
    if (op == "LeakyReLU") {
      const LeakyReluParams p = LeakyReluParams::Parse(attrs);
      if (p.type == LeakyReluParams::kGelu) {
        post.kind = PostOp::kGelu;
        return post;
      }
      if (p.type != LeakyReluParams::kLeaky) return std::nullopt;
      post.kind = PostOp::kLeakyRelu;
      post.alpha = p.slope;
      return post;
    }
  } catch (const Error&) {
    // A malformed attribute: the node stays unfused and its own operator reports the problem.
  }
  return std::nullopt;
}

bool HasSum(const std::vector<PostOp>& post_ops) {
  return std::any_of(post_ops.begin(), post_ops.end(), [](const PostOp& op) { return op.kind == PostOp::kSum; });
}

}  // namespace qv
