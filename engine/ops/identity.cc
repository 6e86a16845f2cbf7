#include "ops/op.h"

namespace qv {
namespace {

// Operators that are the identity at inference; graph passes remove them.
class IdentityOp : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 1);
    return {in[0]};
  }
};

const OpRegistrar kRegister({"Dropout", "identity", "_copy", "BlockGrad", "stop_gradient"}, new IdentityOp);

}  // namespace
}  // namespace qv
