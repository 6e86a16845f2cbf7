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
};

const OpRegistrar kRegister({{"clip"}}, new ClipOp);

}  // namespace
}  // namespace qv
