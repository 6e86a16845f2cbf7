#include "ops/l2_normalization.h"

#include "common/error.h"

namespace qv {

L2NormGeometry ResolveL2Norm(const Attrs& attrs, const Shape& x) {
  Check(x.size() >= 2, Status::kShape, attrs.Where() + "data must have at least 2 dimensions, got " + ShapeToString(x));
  const std::string mode = attrs.GetString("mode", "instance");
  L2NormGeometry g;
  g.eps = static_cast<float>(attrs.GetFloat("eps", 1e-10));
  const int64_t rest = ElementCount(Shape(x.begin() + 2, x.end()));
  if (mode == "instance") {
    g.outer = x[0];
    g.axis = x[1] * rest;
  } else if (mode == "channel") {
    g.outer = x[0];
    g.axis = x[1];
    g.inner = rest;
  } else if (mode == "spatial") {
    g.outer = x[0] * x[1];
    g.axis = rest;
  } else {
    throw Error(Status::kUnsupported, attrs.Where() + "mode '" + mode + "' is not supported (instance, channel, spatial)");
  }
  return g;
}

namespace {

class L2NormalizationOp : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 1);
    ExpectFloat32(attrs, in);
    ResolveL2Norm(attrs, in[0].shape);
    return {in[0]};
  }
};

const OpRegistrar kRegister({{"L2Normalization"}}, new L2NormalizationOp);

}  // namespace
}  // namespace qv
