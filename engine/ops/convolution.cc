#include "ops/convolution.h"

#include <algorithm>

#include "common/error.h"

namespace qv {

ConvolutionParams ConvolutionParams::Parse(const Attrs& attrs) {
  ConvolutionParams p;
  p.kernel = attrs.GetTuple("kernel", {});
  Check(p.kernel.size() == 2, Status::kUnsupported,
        attrs.Where() + "only 2-D convolution is supported (kernel needs 2 values)");
  p.stride = attrs.GetTuple("stride", {1, 1});
  p.dilate = attrs.GetTuple("dilate", {1, 1});
  p.pad = attrs.GetTuple("pad", {0, 0});
  if (p.stride.empty()) p.stride = {1, 1};
  if (p.dilate.empty()) p.dilate = {1, 1};
  if (p.pad.empty()) p.pad = {0, 0};
  p.num_filter = attrs.RequireInt("num_filter");
  p.num_group = attrs.GetInt("num_group", 1);
  p.no_bias = attrs.GetBool("no_bias", false);
  const std::string layout = attrs.GetString("layout", "None");
  Check(layout == "None" || layout == "NCHW", Status::kUnsupported, attrs.Where() + "layout " + layout + " is not supported");
  for (const auto* t : {&p.stride, &p.dilate, &p.pad})
    Check(t->size() == 2, Status::kParse, attrs.Where() + "stride, dilate and pad need 2 values");
  for (int i = 0; i < 2; ++i) {
    Check(p.kernel[i] > 0 && p.stride[i] > 0 && p.dilate[i] > 0 && p.pad[i] >= 0, Status::kParse,
          attrs.Where() + "kernel, stride and dilate must be positive and pad non-negative");
  }
  Check(p.num_filter > 0 && p.num_group > 0 && p.num_filter % p.num_group == 0, Status::kParse,
        attrs.Where() + "num_filter must be a positive multiple of num_group");
  p.post_ops = attrs.post_ops();
  return p;
}

bool ConvolutionParams::has_sum() const {
  return std::any_of(post_ops.begin(), post_ops.end(), [](const PostOp& op) { return op.kind == PostOp::kSum; });
}

namespace {

class ConvolutionOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs& attrs) const override {
    const auto p = ConvolutionParams::Parse(attrs);
    std::vector<std::string> names = {"data", "weight"};
    if (!p.no_bias) names.push_back("bias");
    if (p.has_sum()) names.push_back("residual");
    return names;
  }

  std::vector<int> ParamInputs(const Attrs& attrs) const override {
    if (ConvolutionParams::Parse(attrs).no_bias) return {1};
    return {1, 2};
  }

  void CheckParams(const Attrs& attrs, const std::vector<const Shape*>& params) const override {
    const auto p = ConvolutionParams::Parse(attrs);
    if (params.size() > 1 && params[1]) {
      const Shape& w = *params[1];
      Check(w.size() == 4 && w[0] == p.num_filter && w[2] == p.kernel[0] && w[3] == p.kernel[1], Status::kShape,
            attrs.Where() + "weight has shape " + ShapeToString(w) + ", expected (" + std::to_string(p.num_filter) +
                ", C/groups, " + std::to_string(p.kernel[0]) + ", " + std::to_string(p.kernel[1]) + ")");
    }
    if (!p.no_bias && params.size() > 2 && params[2]) ExpectParamShape(attrs, "bias", *params[2], {p.num_filter});
  }

  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    const auto p = ConvolutionParams::Parse(attrs);
    ExpectInputs(attrs, in, InputNames(attrs).size());
    ExpectFloat32(attrs, in);
    ExpectNdim(attrs, in[0], "data", 4);
    const Shape& x = in[0].shape;
    Check(x[1] % p.num_group == 0, Status::kShape,
          attrs.Where() + "data channels " + std::to_string(x[1]) + " are not a multiple of num_group");
    ExpectParamShape(attrs, "weight", in[1].shape, {p.num_filter, x[1] / p.num_group, p.kernel[0], p.kernel[1]});
    if (!p.no_bias) ExpectParamShape(attrs, "bias", in[2].shape, {p.num_filter});
    Shape out = {x[0], p.num_filter, 0, 0};
    for (int i = 0; i < 2; ++i) {
      const int64_t span = p.dilate[i] * (p.kernel[i] - 1) + 1;
      const int64_t padded = x[2 + i] + 2 * p.pad[i];
      Check(padded >= span, Status::kShape,
            attrs.Where() + "kernel larger than padded input " + ShapeToString(x));
      out[2 + i] = (padded - span) / p.stride[i] + 1;
    }
    if (p.has_sum()) ExpectParamShape(attrs, "residual", in.back().shape, out);
    return {{out, DType::kFloat32}};
  }
};

const OpRegistrar kRegister({{"Convolution"}}, new ConvolutionOp);

}  // namespace
}  // namespace qv
