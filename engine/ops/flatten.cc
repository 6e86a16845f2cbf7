#include "common/error.h"
#include "ops/op.h"

namespace qv {
namespace {

// (N, d1, d2, ...) -> (N, d1 * d2 * ...).
class FlattenOp : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 1);
    const Shape& x = in[0].shape;
    Check(x.size() >= 1, Status::kShape, attrs.Where() + "data must have at least 1 dimension");
    return {{{x[0], ElementCount(Shape(x.begin() + 1, x.end()))}, in[0].dtype}};
  }
  OpTraits Traits(const Attrs&) const override { return MovesData(DataMovement::kSameOrder); }
};

const OpRegistrar kRegister({{"Flatten", {"flatten"}}}, new FlattenOp);

}  // namespace
}  // namespace qv
