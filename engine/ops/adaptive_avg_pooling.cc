#include "ops/adaptive_avg_pooling.h"

#include "common/error.h"

namespace qv {

AdaptivePoolGeometry ResolveAdaptiveAvgPool(const Attrs& attrs, const Shape& x) {
  Check(x.size() == 4, Status::kShape, attrs.Where() + "data must be 4-D (NCHW), got " + ShapeToString(x));
  const std::vector<int64_t> size = attrs.GetTuple("output_size", {});
  // MXNet 1.9.1 reads an empty tuple as 1 x 1 and, silently, any longer one too: refused here instead.
  Check(size.size() <= 2, Status::kParse,
        attrs.Where() + "output_size must be one integer or a pair (height, width), got '" +
            attrs.GetString("output_size", "") + "'");
  AdaptivePoolGeometry g;
  g.planes = x[0] * x[1];
  g.h = x[2];
  g.w = x[3];
  g.oh = size.empty() ? 1 : size[0];
  g.ow = size.empty() ? 1 : size.back();
  Check(g.oh >= 1 && g.ow >= 1, Status::kParse,
        attrs.Where() + "output_size must be positive, got '" + attrs.GetString("output_size", "") + "'");
  Check(g.h >= 1 && g.w >= 1, Status::kShape, attrs.Where() + "data has an empty plane: " + ShapeToString(x));
  return g;
}

namespace {

class AdaptiveAvgPoolOp : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 1);
    ExpectFloat32(attrs, in);
    const AdaptivePoolGeometry g = ResolveAdaptiveAvgPool(attrs, in[0].shape);
    const Shape& x = in[0].shape;
    return {TensorType{{x[0], x[1], g.oh, g.ow}, in[0].dtype}};
  }
};

const OpRegistrar kRegister({{"_contrib_AdaptiveAvgPooling2D"}}, new AdaptiveAvgPoolOp);

}  // namespace
}  // namespace qv
