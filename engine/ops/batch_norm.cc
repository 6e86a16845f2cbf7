#include "ops/batch_norm.h"

#include <cmath>

#include "common/error.h"

namespace qv {

BatchNormParams BatchNormParams::Parse(const Attrs& attrs) {
  BatchNormParams p;
  p.eps = attrs.GetFloat("eps", 1e-3);
  p.fix_gamma = attrs.GetBool("fix_gamma", true);
  p.axis = attrs.GetInt("axis", 1);
  Check(p.axis == 1, Status::kUnsupported, attrs.Where() + "only axis=1 is supported");
  Check(!attrs.GetBool("output_mean_var", false), Status::kUnsupported, attrs.Where() + "output_mean_var is not supported");
  Check(p.eps > 0, Status::kParse, attrs.Where() + "eps must be positive");
  p.post_ops = attrs.post_ops();
  for (const auto& op : p.post_ops)
    Check(op.kind == PostOp::kRelu, Status::kInternal, attrs.Where() + "only a relu can be fused into BatchNorm");
  return p;
}

double BatchNormParams::ChannelScale(float gamma, float var) const {
  return (fix_gamma ? 1.0 : gamma) / std::sqrt(static_cast<double>(var) + eps);
}

std::vector<float> BatchNormParams::ScaleShift(const float* gamma, const float* beta, const float* mean,
                                               const float* var, int64_t channels) const {
  std::vector<float> scale_shift(2 * static_cast<size_t>(channels));
  for (int64_t c = 0; c < channels; ++c) {
    const double s = ChannelScale(gamma[c], var[c]);
    scale_shift[c] = static_cast<float>(s);
    scale_shift[channels + c] = static_cast<float>(beta[c] - mean[c] * s);
  }
  return scale_shift;
}

namespace {

class BatchNormOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs&) const override {
    return {"data", "gamma", "beta", "moving_mean", "moving_var"};
  }

  std::vector<int> ParamInputs(const Attrs&) const override { return {1, 2, 3, 4}; }

  void CheckParams(const Attrs& attrs, const std::vector<const Shape*>& params) const override {
    BatchNormParams::Parse(attrs);
    const Shape* first = nullptr;
    const auto names = InputNames(attrs);
    for (size_t i = 1; i < params.size(); ++i) {
      if (!params[i]) continue;
      Check(params[i]->size() == 1, Status::kShape,
            attrs.Where() + names[i] + " must be 1-D, got " + ShapeToString(*params[i]));
      if (first) ExpectParamShape(attrs, names[i].c_str(), *params[i], *first);
      first = params[i];
    }
  }

  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    BatchNormParams::Parse(attrs);
    ExpectInputs(attrs, in, 5);
    ExpectFloat32(attrs, in);
    Check(in[0].shape.size() >= 2, Status::kShape, attrs.Where() + "data needs at least 2 dimensions");
    const auto names = InputNames(attrs);
    for (int i = 1; i < 5; ++i) ExpectParamShape(attrs, names[i].c_str(), in[i].shape, {in[0].shape[1]});
    return {in[0]};
  }
};

const OpRegistrar kRegister({{"BatchNorm"}}, new BatchNormOp);

}  // namespace
}  // namespace qv
