#include "ops/clip.h"

#include "common/error.h"

namespace qv {

ClipBounds ParseClip(const Attrs& attrs) {
  ClipBounds b;
  for (const char* key : {"a_min", "a_max"})
    Check(attrs.Has(key), Status::kParse, attrs.Where() + "required attribute '" + key + "' is missing");
  b.lo = static_cast<float>(attrs.GetFloat("a_min", 0));
  b.hi = static_cast<float>(attrs.GetFloat("a_max", 0));
  Check(b.lo <= b.hi, Status::kParse,
        attrs.Where() + "a_min (" + attrs.GetString("a_min", "") + ") is greater than a_max (" +
            attrs.GetString("a_max", "") + ")");
  return b;
}

namespace {

// clip(x, a_min, a_max): Gluon's relu6 is clip(0, 6).
class ClipOp : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ParseClip(attrs);
    ExpectInputs(attrs, in, 1);
    ExpectFloat32(attrs, in);
    return {in[0]};
  }
  // On an integer tensor MXNet 1.9.1 converts the bounds to its type: int32 clip(0.5, 7.5) is clip(0, 7).
  OpTraits Traits(const Attrs&) const override {
    OpTraits t;
    t.output_dtypes = {OutputDType::kOfInputs};
    t.integer_attrs = {"a_min", "a_max"};
    t.elementwise = true;
    t.activation = ActivationKind::kClip;
    return t;
  }
};

const OpRegistrar kRegister({{"clip"}}, new ClipOp);

}  // namespace
}  // namespace qv
