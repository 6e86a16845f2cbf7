#include "ops/cast.h"

#include "common/error.h"

namespace qv {

bool CastTruncates(const Attrs& attrs) {
  const std::string dtype = attrs.Require("dtype");
  if (dtype == "float32") return false;
  if (dtype == "int32" || dtype == "int64") return true;
  throw Error(Status::kUnsupported, attrs.Where() + "dtype '" + dtype +
                                        "' is not supported (Quiver computes in float32 and casts only to "
                                        "float32, int32 or int64)");
}

namespace {

class CastOp : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    CastTruncates(attrs);
    ExpectInputs(attrs, in, 1);
    ExpectFloat32(attrs, in);
    return {in[0]};
  }
  OpTraits Traits(const Attrs& attrs) const override {
    const std::string dtype = attrs.GetString("dtype", "float32");
    OpTraits t;
    t.elementwise = true;
    if (dtype == "int32" || dtype == "int64") t.output_dtypes = {OutputDType::kInteger};
    return t;
  }
};

const OpRegistrar kCast({{"Cast", {"cast"}}}, new CastOp);

}  // namespace
}  // namespace qv
