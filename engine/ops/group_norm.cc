#include "ops/group_norm.h"

#include "common/error.h"

namespace qv {

GroupNormGeometry ResolveGroupNorm(const Attrs& attrs, const Shape& x) {
  Check(!attrs.GetBool("output_mean_var", false), Status::kUnsupported,
        attrs.Where() + "output_mean_var=True (the mean and deviation as outputs) is not supported");
  Check(x.size() >= 3, Status::kShape,
        attrs.Where() + "data must be (batch, channels, spatial...) with at least 3 dimensions, got " + ShapeToString(x));
  GroupNormGeometry g;
  g.groups = attrs.GetInt("num_groups", 1);
  Check(g.groups > 0, Status::kParse, attrs.Where() + "num_groups must be positive");
  g.batch = x[0];
  g.channels = x[1];
  Check(g.channels % g.groups == 0, Status::kShape,
        attrs.Where() + "the " + std::to_string(g.channels) + " channels do not divide into " +
            std::to_string(g.groups) + " groups");
  for (size_t d = 2; d < x.size(); ++d) g.spatial *= x[d];
  g.group_size = g.channels / g.groups * g.spatial;
  g.eps = static_cast<float>(attrs.GetFloat("eps", 1e-5));
  Check(g.eps >= 0, Status::kParse, attrs.Where() + "eps must not be negative");
  return g;
}

namespace {

class GroupNormOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs&) const override { return {"data", "gamma", "beta"}; }
  std::vector<int> ParamInputs(const Attrs&) const override { return {1, 2}; }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 3);
    ExpectFloat32(attrs, in);
    const GroupNormGeometry g = ResolveGroupNorm(attrs, in[0].shape);
    ExpectParamShape(attrs, "gamma", in[1].shape, {g.groups});
    ExpectParamShape(attrs, "beta", in[2].shape, {g.groups});
    return {in[0]};
  }
};

const OpRegistrar kRegister({{"GroupNorm"}}, new GroupNormOp);

}  // namespace
}  // namespace qv
