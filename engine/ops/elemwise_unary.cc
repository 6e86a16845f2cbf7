// Math functions of one float32 tensor, element by element, with MXNet's names: exp.
#include "common/error.h"
#include "ops/op.h"

namespace qv {
namespace {

class ElemwiseUnaryOp : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 1);
    ExpectFloat32(attrs, in);
    return {in[0]};
  }
};

const OpRegistrar kRegister({{"exp"}}, new ElemwiseUnaryOp);

}  // namespace
}  // namespace qv
