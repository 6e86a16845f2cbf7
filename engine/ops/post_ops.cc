#include "ops/post_ops.h"

#include <cstdio>
#include <cstdlib>

#include "common/error.h"
#include "ops/clip.h"
#include "ops/leaky_relu.h"

namespace qv {
namespace {

std::string FormatFloat(float v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", static_cast<double>(v));
  return buf;
}

// Splits "clip:0:6" into its fields.
std::vector<std::string> Fields(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t colon = text.find(':', start);
    out.push_back(text.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
    if (colon == std::string::npos) return out;
    start = colon + 1;
  }
}

bool ParseFloat(const std::string& text, float* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  *out = std::strtof(text.c_str(), &end);
  return *end == '\0';
}

PostOp ParseOne(const Attrs& attrs, const std::string& text) {
  const std::vector<std::string> f = Fields(text);
  PostOp op;
  bool ok = false;
  if (f[0] == "relu" || f[0] == "sum") {
    op.kind = f[0] == "relu" ? PostOp::kRelu : PostOp::kSum;
    ok = f.size() == 1;
  } else if (f[0] == "leaky") {
    op.kind = PostOp::kLeakyRelu;
    ok = f.size() == 2 && ParseFloat(f[1], &op.alpha);
  } else if (f[0] == "clip") {
    op.kind = PostOp::kClip;
    ok = f.size() == 3 && ParseFloat(f[1], &op.alpha) && ParseFloat(f[2], &op.beta) && op.alpha <= op.beta;
  }
  Check(ok, QV_ERR_PARSE, attrs.Where() + "unknown fused post-op '" + text + "'");
  return op;
}

}  // namespace

std::string PostOp::ToString() const {
  switch (kind) {
    case kRelu: return "relu";
    case kLeakyRelu: return "leaky:" + FormatFloat(alpha);
    case kClip: return "clip:" + FormatFloat(alpha) + ":" + FormatFloat(beta);
    case kSum: break;
  }
  return "sum";
}

std::vector<PostOp> ParsePostOps(const Attrs& attrs) {
  std::vector<PostOp> ops;
  const std::string text = attrs.GetString(kPostOpsAttr, "");
  size_t start = 0;
  while (start < text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    ops.push_back(ParseOne(attrs, text.substr(start, comma - start)));
    start = comma + 1;
  }
  return ops;
}

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

}  // namespace qv
