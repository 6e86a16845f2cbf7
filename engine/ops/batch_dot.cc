// batch_dot(transpose_a=False, transpose_b=False): matrix products over the leading (batch) axes of
// two operands of one rank >= 3, as MXNet 1.9.1's BatchDotShape defines them.
#include "common/error.h"
#include "ops/transformer_ops.h"

namespace qv {

BatchDotGeometry ResolveBatchDot(const Attrs& attrs, const Shape& a, const Shape& b) {
  Check(attrs.GetString("forward_stype", "None") == "None", Status::kUnsupported,
        attrs.Where() + "forward_stype (sparse storage) is not supported");
  Check(a.size() >= 3 && a.size() == b.size(), Status::kShape,
        attrs.Where() + "lhs " + ShapeToString(a) + " and rhs " + ShapeToString(b) +
            " must have one rank of at least 3");
  const size_t r = a.size();
  BatchDotGeometry g;
  g.transpose_a = attrs.GetBool("transpose_a", false);
  g.transpose_b = attrs.GetBool("transpose_b", false);
  for (size_t d = 0; d + 2 < r; ++d) {
    Check(a[d] == b[d], Status::kShape,
          attrs.Where() + "the leading (batch) dimensions of lhs " + ShapeToString(a) + " and rhs " +
              ShapeToString(b) + " differ");
    g.batch *= a[d];
  }
  g.m = g.transpose_a ? a[r - 1] : a[r - 2];
  g.k = g.transpose_a ? a[r - 2] : a[r - 1];
  g.n = g.transpose_b ? b[r - 2] : b[r - 1];
  const int64_t k_b = g.transpose_b ? b[r - 1] : b[r - 2];
  Check(g.k == k_b, Status::kShape,
        attrs.Where() + "lhs " + ShapeToString(a) + " and rhs " + ShapeToString(b) + " (transpose_a=" +
            (g.transpose_a ? "True" : "False") + ", transpose_b=" + (g.transpose_b ? "True" : "False") +
            ") have inner sizes " + std::to_string(g.k) + " and " + std::to_string(k_b));
  return g;
}

namespace {

class BatchDotOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs&) const override { return {"lhs", "rhs"}; }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 2);
    ExpectFloat32(attrs, in);
    const BatchDotGeometry g = ResolveBatchDot(attrs, in[0].shape, in[1].shape);
    Shape out(in[0].shape.begin(), in[0].shape.end() - 2);
    out.push_back(g.m);
    out.push_back(g.n);
    return {{out, DType::kFloat32}};
  }
};

const OpRegistrar kBatchDot({{"batch_dot"}}, new BatchDotOp);

}  // namespace
}  // namespace qv
