// LayerNorm(axis=-1, eps=1e-5, output_mean_var=False): each lane along `axis` normalised by its own
// mean and variance, then scaled by gamma and shifted by beta (both of the axis's size).
#include "common/error.h"
#include "ops/transformer_ops.h"

namespace qv {

LayerNormGeometry ResolveLayerNorm(const Attrs& attrs, const Shape& x) {
  Check(!x.empty(), Status::kShape, attrs.Where() + "data must have at least 1 dimension");
  Check(!attrs.GetBool("output_mean_var", false), Status::kUnsupported,
        attrs.Where() + "output_mean_var=True (the mean and deviation as outputs) is not supported");
  const int64_t ndim = static_cast<int64_t>(x.size());
  int64_t axis = attrs.GetInt("axis", -1);
  Check(axis >= -ndim && axis < ndim, Status::kShape,
        attrs.Where() + "axis " + std::to_string(axis) + " is out of range for " + ShapeToString(x));
  if (axis < 0) axis += ndim;
  LayerNormGeometry g;
  for (int64_t d = 0; d < axis; ++d) g.outer *= x[d];
  g.axis = x[axis];
  for (int64_t d = axis + 1; d < ndim; ++d) g.inner *= x[d];
  g.eps = static_cast<float>(attrs.GetFloat("eps", 1e-5));
  Check(g.eps >= 0, Status::kParse, attrs.Where() + "eps must not be negative");
  return g;
}

namespace {

class LayerNormOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs&) const override { return {"data", "gamma", "beta"}; }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 3);
    ExpectFloat32(attrs, in);
    const LayerNormGeometry g = ResolveLayerNorm(attrs, in[0].shape);
    ExpectParamShape(attrs, "gamma", in[1].shape, {g.axis});
    ExpectParamShape(attrs, "beta", in[2].shape, {g.axis});
    return {in[0]};
  }
};

const OpRegistrar kLayerNorm({{"LayerNorm"}}, new LayerNormOp);

}  // namespace
}  // namespace qv
