#include "ops/upsampling.h"

#include "common/error.h"

namespace qv {

UpSamplingParams UpSamplingParams::Parse(const Attrs& attrs) {
  UpSamplingParams p;
  p.scale = attrs.RequireInt("scale");
  Check(p.scale >= 1 && p.scale <= 1000, Status::kParse,
        attrs.Where() + "scale must be between 1 and 1000, got " + std::to_string(p.scale));
  const std::string type = attrs.Require("sample_type");
  Check(type == "nearest" || type == "bilinear", Status::kParse,
        attrs.Where() + "sample_type '" + type + "' is not nearest or bilinear");
  p.bilinear = type == "bilinear";
  const std::string mode = attrs.GetString("multi_input_mode", "concat");
  Check(mode == "concat" || mode == "sum", Status::kParse,
        attrs.Where() + "multi_input_mode '" + mode + "' is not concat or sum");
  p.sum = mode == "sum";
  p.num_args = attrs.GetInt("num_args", p.bilinear ? 2 : 1);
  Check(p.num_args >= 1, Status::kParse, attrs.Where() + "num_args must be at least 1");
  Check(!p.bilinear || p.num_args == 2, Status::kParse,
        attrs.Where() + "bilinear upsampling takes 2 inputs (data, weight), num_args is " + std::to_string(p.num_args));
  p.num_filter = attrs.GetInt("num_filter", 0);
  return p;
}

std::map<std::string, std::string> UpSamplingParams::DeconvolutionAttrs() const {
  const std::string k = std::to_string(2 * scale - scale % 2), s = std::to_string(scale);
  const std::string pad = std::to_string(scale / 2);  // ceil((scale - 1) / 2)
  return {{"kernel", "(" + k + ", " + k + ")"}, {"stride", "(" + s + ", " + s + ")"},
          {"pad", "(" + pad + ", " + pad + ")"}, {"num_filter", std::to_string(num_filter)},
          {"num_group", std::to_string(num_filter)}, {"no_bias", "True"}};
}

std::vector<int64_t> NearestScales(const Attrs& attrs, const std::vector<Shape>& inputs, const Shape& output) {
  std::vector<int64_t> scales;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Shape& x = inputs[i];
    const std::string which = "input " + std::to_string(i) + " " + ShapeToString(x);
    Check(x.size() == 4, Status::kShape, attrs.Where() + which + " is not 4-D (N, C, H, W)");
    Check(x[0] == output[0], Status::kShape,
          attrs.Where() + which + " has another batch size than input 0 " + ShapeToString(inputs[0]));
    const int64_t s = output[2] / x[2];
    // MXNet takes the height's factor for both axes (a width that scales otherwise fails as it runs).
    Check(output[2] % x[2] == 0 && x[3] * s == output[3], Status::kShape,
          attrs.Where() + which + " does not scale by one whole factor to the output's " +
              std::to_string(output[2]) + "x" + std::to_string(output[3]));
    scales.push_back(s);
  }
  return scales;
}

namespace {

class UpSamplingOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs& attrs) const override {
    const auto p = UpSamplingParams::Parse(attrs);
    if (p.bilinear) return {"data", "weight"};
    std::vector<std::string> names;
    for (int64_t i = 0; i < p.num_args; ++i) names.push_back("arg" + std::to_string(i));
    return names;
  }

  std::vector<int> ParamInputs(const Attrs& attrs) const override {
    if (UpSamplingParams::Parse(attrs).bilinear) return {1};
    return {};
  }

  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    const auto p = UpSamplingParams::Parse(attrs);
    ExpectInputs(attrs, in, InputNames(attrs).size());
    ExpectFloat32(attrs, in);
    ExpectNdim(attrs, in[0], p.bilinear ? "data" : "arg0", 4);
    Shape out = in[0].shape;
    out[2] *= p.scale;
    out[3] *= p.scale;
    if (p.bilinear) {
      Check(p.num_filter == out[1], Status::kShape,
            attrs.Where() + "num_filter " + std::to_string(p.num_filter) + " must be the data's channel count " +
                std::to_string(out[1]) + " for bilinear upsampling");
      const int64_t k = 2 * p.scale - p.scale % 2;
      ExpectParamShape(attrs, "weight", in[1].shape, {out[1], 1, k, k});
      return {{out, DType::kFloat32}};
    }
    std::vector<Shape> shapes;
    for (const TensorType& t : in) shapes.push_back(t.shape);
    NearestScales(attrs, shapes, out);
    out[1] = 0;
    for (const Shape& s : shapes) {
      Check(!p.sum || s[1] == shapes[0][1], Status::kShape,
            attrs.Where() + "multi_input_mode sum needs equal channel counts, got " + ShapeToString(s) + " and " +
                ShapeToString(shapes[0]));
      out[1] = p.sum ? s[1] : out[1] + s[1];
    }
    return {{out, DType::kFloat32}};
  }
};

const OpRegistrar kRegister({{"UpSampling"}}, new UpSamplingOp);

}  // namespace
}  // namespace qv
