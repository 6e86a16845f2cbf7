#include "ops/identity.h"

#include <set>

#include "ops/op.h"

namespace qv {
namespace {

class IdentityOp : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 1);
    return {in[0]};
  }
};

const OpRegistrar kRegister({"Dropout", "identity", "_copy", "BlockGrad", "stop_gradient"}, new IdentityOp);

}  // namespace

bool IsIdentityOp(const std::string& op) {
  static const std::set<std::string> kIdentities = {"Dropout", "identity", "_copy", "BlockGrad", "stop_gradient"};
  return kIdentities.count(op) == 1;
}

}  // namespace qv
