// where(condition, x, y): x where the condition is non-zero, else y. The condition has x's shape, or
// is 1-D with x's first dimension (it then picks whole rows).
#include "common/error.h"
#include "ops/op.h"

namespace qv {
namespace {

class WhereOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs&) const override { return {"condition", "x", "y"}; }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 3);
    ExpectFloat32(attrs, in);
    const Shape &cond = in[0].shape, &x = in[1].shape, &y = in[2].shape;
    Check(x == y, Status::kShape, attrs.Where() + "x " + ShapeToString(x) + " and y " + ShapeToString(y) + " differ");
    const bool rows = cond.size() == 1 && !x.empty() && cond[0] == x[0];
    Check(cond == x || rows, Status::kShape,
          attrs.Where() + "condition " + ShapeToString(cond) + " must have x's shape " + ShapeToString(x) +
              " or be 1-D with its first dimension");
    return {in[1]};
  }
};

const OpRegistrar kRegister({{"where"}}, new WhereOp);

}  // namespace
}  // namespace qv
