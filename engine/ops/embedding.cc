#include "ops/embedding.h"

#include "common/error.h"

namespace qv {

EmbeddingParams EmbeddingParams::Parse(const Attrs& attrs) {
  EmbeddingParams p;
  p.input_dim = attrs.RequireInt("input_dim");
  p.output_dim = attrs.RequireInt("output_dim");
  Check(p.input_dim >= 1 && p.output_dim >= 1, Status::kParse,
        attrs.Where() + "input_dim and output_dim must be at least 1");
  const std::string dtype = attrs.GetString("dtype", "float32");
  Check(dtype == "float32", Status::kUnsupported, attrs.Where() + "dtype " + dtype + " is not supported, only float32");
  return p;
}

namespace {

class EmbeddingOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs&) const override { return {"data", "weight"}; }
  std::vector<int> ParamInputs(const Attrs&) const override { return {1}; }
  void CheckParams(const Attrs& attrs, const std::vector<const Shape*>& params) const override {
    const EmbeddingParams p = EmbeddingParams::Parse(attrs);
    if (params.size() > 1 && params[1]) ExpectParamShape(attrs, "weight", *params[1], {p.input_dim, p.output_dim});
  }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    const EmbeddingParams p = EmbeddingParams::Parse(attrs);
    ExpectInputs(attrs, in, 2);
    ExpectFloat32(attrs, in);
    ExpectParamShape(attrs, "weight", in[1].shape, {p.input_dim, p.output_dim});
    Shape out = in[0].shape;
    out.push_back(p.output_dim);
    return {{out, DType::kFloat32}};
  }
};

const OpRegistrar kRegister({{"Embedding"}}, new EmbeddingOp);

}  // namespace
}  // namespace qv
