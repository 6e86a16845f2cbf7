#include "common/error.h"
#include "ops/shape_ops.h"

namespace qv {

Shape RepeatOutput(const Attrs& attrs, const Shape& input) {
  const int64_t repeats = attrs.RequireInt("repeats");
  // MXNet makes an empty (0,) tensor of repeats=0; Quiver has no empty tensors.
  Check(repeats >= 1, Status::kShape,
        attrs.Where() + "repeats is " + std::to_string(repeats) + ", it must be at least 1");
  const std::string what = attrs.Where() + "the output (repeats " + std::to_string(repeats) + ")";
  if (attrs.GetString("axis", "None") == "None") return {CheckedMul(ElementCount(input), repeats, what)};
  const int64_t ndim = static_cast<int64_t>(input.size());
  int64_t axis = attrs.GetInt("axis", 0);
  Check(axis >= -ndim && axis < ndim, Status::kShape,
        attrs.Where() + "axis " + std::to_string(axis) + " is out of range for data " + ShapeToString(input));
  if (axis < 0) axis += ndim;
  Shape out = input;
  out[axis] = CheckedMul(out[axis], repeats, what);
  return out;
}

namespace {

// repeat(data, repeats, axis): each element `repeats` times in a row along the axis, as numpy.repeat.
class RepeatOp : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 1);
    ExpectFloat32(attrs, in);
    Check(!in[0].shape.empty(), Status::kShape, attrs.Where() + "data must have at least 1 dimension");
    return {{RepeatOutput(attrs, in[0].shape), in[0].dtype}};
  }
  OpTraits Traits(const Attrs&) const override { return MovesData(DataMovement::kEnlarge); }
};

const OpRegistrar kRegister({{"repeat"}}, new RepeatOp);

}  // namespace
}  // namespace qv
