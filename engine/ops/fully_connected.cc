#include "ops/fully_connected.h"

#include "common/error.h"
#include "ops/post_ops.h"

namespace qv {

FullyConnectedParams FullyConnectedParams::Parse(const Attrs& attrs) {
  FullyConnectedParams p;
  p.num_hidden = attrs.RequireInt("num_hidden");
  Check(p.num_hidden > 0, Status::kParse, attrs.Where() + "num_hidden must be positive");
  p.no_bias = attrs.GetBool("no_bias", false);
  p.flatten = attrs.GetBool("flatten", true);
  p.has_sum = HasSum(attrs.post_ops());
  return p;
}

namespace {

class FullyConnectedOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs& attrs) const override {
    const auto p = FullyConnectedParams::Parse(attrs);
    std::vector<std::string> names = {"data", "weight"};
    if (!p.no_bias) names.push_back("bias");
    if (p.has_sum) names.push_back("residual");
    return names;
  }

  std::vector<int> ParamInputs(const Attrs& attrs) const override {
    if (FullyConnectedParams::Parse(attrs).no_bias) return {1};
    return {1, 2};
  }

  std::vector<int> PackedInputs(const Attrs&) const override { return {1}; }  // the weight

  void CheckParams(const Attrs& attrs, const std::vector<const Shape*>& params) const override {
    const auto p = FullyConnectedParams::Parse(attrs);
    if (params.size() > 1 && params[1])
      Check(params[1]->size() == 2 && (*params[1])[0] == p.num_hidden, Status::kShape,
            attrs.Where() + "weight has shape " + ShapeToString(*params[1]) + ", expected (" +
                std::to_string(p.num_hidden) + ", K)");
    if (!p.no_bias && params.size() > 2 && params[2]) ExpectParamShape(attrs, "bias", *params[2], {p.num_hidden});
  }

  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    const auto p = FullyConnectedParams::Parse(attrs);
    ExpectInputs(attrs, in, InputNames(attrs).size());
    ExpectFloat32(attrs, in);
    const Shape& x = in[0].shape;
    Check(x.size() >= 1, Status::kShape, attrs.Where() + "data must have at least 1 dimension");
    Shape out;
    int64_t k = 0;
    if (p.flatten) {
      Check(x.size() >= 2, Status::kShape, attrs.Where() + "data must have at least 2 dimensions, got " + ShapeToString(x));
      k = ElementCount(Shape(x.begin() + 1, x.end()));
      out = {x[0], p.num_hidden};
    } else {
      k = x.back();
      out = x;
      out.back() = p.num_hidden;
    }
    ExpectParamShape(attrs, "weight", in[1].shape, {p.num_hidden, k});
    if (!p.no_bias) ExpectParamShape(attrs, "bias", in[2].shape, {p.num_hidden});
    if (p.has_sum) ExpectParamShape(attrs, "residual", in.back().shape, out);
    return {{out, DType::kFloat32}};
  }
};

const OpRegistrar kRegister({{"FullyConnected"}}, new FullyConnectedOp);

}  // namespace
}  // namespace qv
