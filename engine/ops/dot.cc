// dot(transpose_a=False, transpose_b=False): MXNet 1.9.1's DotShape and DotForward_. Each operand is
// one matrix: the lhs is (everything but its last axis) x (its last axis), or with transpose_a its
// first axis x the rest, read transposed; the rhs is (its first axis) x (the rest), or with transpose_b
// (all but its last axis) x (its last axis), read transposed. The output keeps the lhs's and the rhs's
// uncontracted axes, each only where that operand has more than one axis; two vectors give shape (1,).
#include "common/error.h"
#include "common/shape.h"
#include "ops/transformer_ops.h"

namespace qv {

BatchDotGeometry ResolveDot(const Attrs& attrs, const Shape& a, const Shape& b, Shape* out) {
  Check(attrs.GetString("forward_stype", "None") == "None", Status::kUnsupported,
        attrs.Where() + "forward_stype (sparse storage) is not supported");
  Check(!a.empty() && !b.empty(), Status::kShape, attrs.Where() + "scalar operands are not supported");
  BatchDotGeometry g;
  g.transpose_a = attrs.GetBool("transpose_a", false);
  g.transpose_b = attrs.GetBool("transpose_b", false);
  const std::string shapes = "lhs " + ShapeToString(a) + " and rhs " + ShapeToString(b);
  Check(a.size() > 1 || b.size() > 1 || (!g.transpose_a && !g.transpose_b), Status::kShape,
        attrs.Where() + "the vectors " + shapes + " cannot be transposed");
  // The axes each operand keeps; a vector keeps none.
  const Shape a_kept(g.transpose_a ? a.begin() + 1 : a.begin(), g.transpose_a ? a.end() : a.end() - 1);
  const Shape b_kept(g.transpose_b ? b.begin() : b.begin() + 1, g.transpose_b ? b.end() - 1 : b.end());
  g.m = ElementCount(a_kept);
  g.k = g.transpose_a ? a.front() : a.back();
  g.n = ElementCount(b_kept);
  const int64_t k_b = g.transpose_b ? b.back() : b.front();
  Check(g.k == k_b, Status::kShape,
        attrs.Where() + shapes + " (transpose_a=" + (g.transpose_a ? "True" : "False") +
            ", transpose_b=" + (g.transpose_b ? "True" : "False") + ") have inner sizes " + std::to_string(g.k) +
            " and " + std::to_string(k_b));
  if (out) {
    *out = a_kept;
    out->insert(out->end(), b_kept.begin(), b_kept.end());
    if (out->empty()) out->push_back(1);
  }
  return g;
}

namespace {

class DotOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs&) const override { return {"lhs", "rhs"}; }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 2);
    ExpectFloat32(attrs, in);
    Shape out;
    ResolveDot(attrs, in[0].shape, in[1].shape, &out);
    return {{out, DType::kFloat32}};
  }
};

const OpRegistrar kDot({{"dot"}}, new DotOp);

}  // namespace
}  // namespace qv
