#include "ops/input_to_float32.h"

#include "ops/op.h"

namespace qv {
namespace {

class InputToFloat32Op : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 1);
    Check(IsInputDType(in[0].dtype) && in[0].dtype != DType::kFloat32, Status::kUnsupported,
          attrs.Where() + DTypeName(in[0].dtype) + " is not converted (inputs may be float32, float64, uint8, "
                          "int8, int32 or int64)");
    return {{in[0].shape, DType::kFloat32}};
  }
};

const OpRegistrar kRegister({{kInputToFloat32}}, new InputToFloat32Op);

}  // namespace
}  // namespace qv
