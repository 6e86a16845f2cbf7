#include "ops/convolution.h"

#include "common/error.h"

namespace qv {

ConvolutionParams ConvolutionParams::Parse(const Attrs& attrs) {
  ConvolutionParams p;
  p.kernel = attrs.GetTuple("kernel", {});
  Check(p.kernel.size() == 2 || p.kernel.size() == 3, Status::kUnsupported,
        attrs.Where() + "only 2-D and 3-D convolution are supported (kernel needs 2 or 3 values)");
  const size_t n = p.kernel.size();
  p.stride = attrs.GetTuple("stride", {});
  p.dilate = attrs.GetTuple("dilate", {});
  p.pad = attrs.GetTuple("pad", {});
  if (p.stride.empty()) p.stride.assign(n, 1);
  if (p.dilate.empty()) p.dilate.assign(n, 1);
  if (p.pad.empty()) p.pad.assign(n, 0);
  p.num_filter = attrs.RequireInt("num_filter");
  p.num_group = attrs.GetInt("num_group", 1);
  p.no_bias = attrs.GetBool("no_bias", false);
  const std::string layout = attrs.GetString("layout", "None");
  const std::string own = n == 2 ? "NCHW" : "NCDHW";
  Check(layout == "None" || layout == own, Status::kUnsupported, attrs.Where() + "layout " + layout + " is not supported");
  for (const auto* t : {&p.stride, &p.dilate, &p.pad})
    Check(t->size() == n, Status::kParse,
          attrs.Where() + "stride, dilate and pad need " + std::to_string(n) + " values, as kernel has");
  for (size_t i = 0; i < n; ++i) {
    Check(p.kernel[i] > 0 && p.stride[i] > 0 && p.dilate[i] > 0 && p.pad[i] >= 0, Status::kParse,
          attrs.Where() + "kernel, stride and dilate must be positive and pad non-negative");
  }
  Check(p.num_filter > 0 && p.num_group > 0 && p.num_filter % p.num_group == 0, Status::kParse,
        attrs.Where() + "num_filter must be a positive multiple of num_group");
  p.post_ops = attrs.post_ops();
  return p;
}

bool ConvolutionParams::has_sum() const { return HasSum(post_ops); }

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

  std::vector<int> PackedInputs(const Attrs&) const override { return {1}; }  // the weight

  void CheckParams(const Attrs& attrs, const std::vector<const Shape*>& params) const override {
    const auto p = ConvolutionParams::Parse(attrs);
    if (params.size() > 1 && params[1]) {
      const Shape& w = *params[1];
      bool ok = w.size() == p.kernel.size() + 2 && w[0] == p.num_filter;
      std::string kernel;
      for (size_t i = 0; i < p.kernel.size(); ++i) {
        ok = ok && w[2 + i] == p.kernel[i];
        kernel += ", " + std::to_string(p.kernel[i]);
      }
      Check(ok, Status::kShape,
            attrs.Where() + "weight has shape " + ShapeToString(w) + ", expected (" + std::to_string(p.num_filter) +
                ", C/groups" + kernel + ")");
    }
    if (!p.no_bias && params.size() > 2 && params[2]) ExpectParamShape(attrs, "bias", *params[2], {p.num_filter});
  }

  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    const auto p = ConvolutionParams::Parse(attrs);
    const size_t n = p.kernel.size();
    ExpectInputs(attrs, in, InputNames(attrs).size());
    ExpectFloat32(attrs, in);
    ExpectNdim(attrs, in[0], "data", n + 2);
    const Shape& x = in[0].shape;
    Check(x[1] % p.num_group == 0, Status::kShape,
          attrs.Where() + "data channels " + std::to_string(x[1]) + " are not a multiple of num_group");
    Shape weight = {p.num_filter, x[1] / p.num_group};
    weight.insert(weight.end(), p.kernel.begin(), p.kernel.end());
    ExpectParamShape(attrs, "weight", in[1].shape, weight);
    if (!p.no_bias) ExpectParamShape(attrs, "bias", in[2].shape, {p.num_filter});
    Shape out = {x[0], p.num_filter};
    for (size_t i = 0; i < n; ++i) {
      const std::string axis = attrs.Where() + "axis " + std::to_string(i) + ": ";
      const int64_t span = CheckedAdd(CheckedMul(p.dilate[i], p.kernel[i] - 1, axis + "dilate x kernel"), 1, axis + "the kernel's span");
      const int64_t padded = CheckedAdd(x[2 + i], CheckedMul(2, p.pad[i], axis + "pad"), axis + "the padded input");
      Check(padded >= span, Status::kShape,
            attrs.Where() + "kernel larger than padded input " + ShapeToString(x));
      out.push_back((padded - span) / p.stride[i] + 1);
    }
    if (p.has_sum()) ExpectParamShape(attrs, "residual", in.back().shape, out);
    return {{out, DType::kFloat32}};
  }
};

const OpRegistrar kRegister({{"Convolution"}}, new ConvolutionOp);

}  // namespace
}  // namespace qv
