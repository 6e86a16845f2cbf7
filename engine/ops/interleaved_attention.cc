// MXNet's fused self-attention products on interleaved projections (contrib/transformer.cc), and
// _contrib_div_sqrt_dim:
// - _contrib_interleaved_matmul_selfatt_qk(heads): (seq, batch, 3 E) -> (batch * heads, seq, seq),
//   each query against each key of its head, times 1 / sqrt(E / heads);
// - _contrib_interleaved_matmul_selfatt_valatt(heads): the projections and the attention weights
//   (batch * heads, seq, seq) -> (seq, batch, E), the heads' weighted values side by side;
// - _contrib_div_sqrt_dim: data / sqrt(its last dimension).
#include <cmath>

#include "common/error.h"
#include "ops/transformer_ops.h"

namespace qv {

InterleavedGeometry ResolveInterleaved(const Attrs& attrs, const Shape& qkv) {
  Check(qkv.size() == 3, Status::kShape,
        attrs.Where() + "queries_keys_values must be 3-D (seq, batch, 3 * heads * head_dim), got " +
            ShapeToString(qkv));
  const int64_t heads = attrs.RequireInt("heads");
  Check(heads >= 1, Status::kParse, attrs.Where() + "heads must be at least 1, got " + std::to_string(heads));
  Check(qkv[2] % (3 * heads) == 0, Status::kShape,
        attrs.Where() + "the last dimension of " + ShapeToString(qkv) + " is not 3 x heads (" +
            std::to_string(heads) + ") x a head size");
  InterleavedGeometry g;
  g.seq = qkv[0];
  g.batch = qkv[1];
  g.heads = heads;
  g.head_dim = qkv[2] / (3 * heads);
  g.scale = static_cast<float>(1.0 / std::sqrt(static_cast<float>(g.head_dim)));
  return g;
}

float DivSqrtDimDivisor(const Shape& x) { return static_cast<float>(std::sqrt(static_cast<double>(x.back()))); }

namespace {

class SelfAttQkOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs&) const override { return {"queries_keys_values"}; }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 1);
    ExpectFloat32(attrs, in);
    const InterleavedGeometry g = ResolveInterleaved(attrs, in[0].shape);
    return {{{g.attention_batches(), g.seq, g.seq}, DType::kFloat32}};
  }
};

class SelfAttValAttOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs&) const override { return {"queries_keys_values", "attention"}; }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 2);
    ExpectFloat32(attrs, in);
    const InterleavedGeometry g = ResolveInterleaved(attrs, in[0].shape);
    const Shape want = {g.attention_batches(), g.seq, g.seq};
    Check(in[1].shape == want, Status::kShape,
          attrs.Where() + "attention has shape " + ShapeToString(in[1].shape) + ", projections " +
              ShapeToString(in[0].shape) + " need " + ShapeToString(want));
    return {{{g.seq, g.batch, g.heads * g.head_dim}, DType::kFloat32}};
  }
};

class DivSqrtDimOp : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 1);
    ExpectFloat32(attrs, in);
    Check(!in[0].shape.empty(), Status::kShape, attrs.Where() + "data must have at least 1 dimension");
    return {in[0]};
  }
};

const OpRegistrar kQk({{"_contrib_interleaved_matmul_selfatt_qk"}}, new SelfAttQkOp);
const OpRegistrar kValAtt({{"_contrib_interleaved_matmul_selfatt_valatt"}}, new SelfAttValAttOp);
const OpRegistrar kDivSqrtDim({{"_contrib_div_sqrt_dim"}}, new DivSqrtDimOp);

}  // namespace
}  // namespace qv
