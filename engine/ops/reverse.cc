#include "common/error.h"
#include "ops/shape_ops.h"

namespace qv {

std::vector<bool> ReversedAxes(const Attrs& attrs, size_t ndim) {
  attrs.Require("axis");
  const int64_t n = static_cast<int64_t>(ndim);
  std::vector<bool> reversed(ndim, false);
  for (int64_t a : attrs.GetTuple("axis", {})) {
    // MXNet 1.9.1's reverse indexes the shape with the axis as given: a negative one fails there too.
    Check(a >= 0 && a < n, Status::kShape,
          attrs.Where() + "axis " + attrs.GetString("axis", "") + " has an axis outside 0.." + std::to_string(n - 1));
    reversed[a] = !reversed[a];
  }
  return reversed;
}

namespace {

// reverse(data, axis): the data with the order of its elements along each named axis reversed.
class ReverseOp : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 1);
    ExpectFloat32(attrs, in);
    Check(!in[0].shape.empty(), Status::kShape, attrs.Where() + "data must have at least 1 dimension");
    ReversedAxes(attrs, in[0].shape.size());
    return {in[0]};
  }
  OpTraits Traits(const Attrs&) const override { return MovesData(DataMovement::kStrided); }
};

const OpRegistrar kRegister({{"reverse", {"flip"}}}, new ReverseOp);

}  // namespace
}  // namespace qv
