#include "common/error.h"
#include "ops/shape_ops.h"

namespace qv {
namespace {

int64_t ResolveAxis(const Attrs& attrs, const char* key, int64_t axis, const Shape& shape) {
  const int64_t n = static_cast<int64_t>(shape.size());
  Check(axis >= -n && axis < n, Status::kShape,
        attrs.Where() + key + " has axis " + std::to_string(axis) + ", out of range for " + ShapeToString(shape));
  return axis < 0 ? axis + n : axis;
}

void ExpectBroadcastable(const Attrs& attrs, const Shape& in, const Shape& out) {
  for (size_t d = 0; d < in.size(); ++d)
    Check(in[d] == out[d] || in[d] == 1, Status::kShape,
          attrs.Where() + "cannot broadcast " + ShapeToString(in) + " to " + ShapeToString(out));
}

// broadcast_axis(axis, size): the given axes, each of size 1, grown to their sizes.
Shape BroadcastAxisOutput(const Attrs& attrs, const Shape& in) {
  const std::vector<int64_t> axes = attrs.GetTuple("axis", {});
  const std::vector<int64_t> sizes = attrs.GetTuple("size", {});
  Check(axes.size() == sizes.size(), Status::kShape,
        attrs.Where() + "axis " + attrs.GetString("axis", "()") + " and size " + attrs.GetString("size", "()") +
            " must have as many entries");
  Shape out = in;
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t a = ResolveAxis(attrs, "axis", axes[i], in);
    Check(in[a] == 1, Status::kShape,
          attrs.Where() + "axis " + std::to_string(axes[i]) + " of " + ShapeToString(in) + " has size " +
              std::to_string(in[a]) + "; only size-1 axes broadcast");
    Check(sizes[i] >= 1, Status::kShape, attrs.Where() + "size " + std::to_string(sizes[i]) + " must be at least 1");
    out[a] = sizes[i];
  }
  return out;
}

// broadcast_to(shape): the shape given, a 0 keeping the input's size there.
Shape BroadcastToShapeOutput(const Attrs& attrs, const Shape& in) {
  Shape out = attrs.GetTuple("shape", {});
  Check(out.size() == in.size(), Status::kShape,
        attrs.Where() + "cannot broadcast " + ShapeToString(in) + " to shape " + attrs.GetString("shape", "()") +
            " (another number of dimensions)");
  for (size_t d = 0; d < in.size(); ++d)
    if (out[d] == 0) out[d] = in[d];
  ExpectBroadcastable(attrs, in, out);
  return out;
}

// broadcast_like(lhs, rhs, lhs_axes, rhs_axes): lhs grown to rhs's shape, or only lhs_axes[i] grown to
// rhs's size along rhs_axes[i] when both are given.
Shape BroadcastLikeOutput(const Attrs& attrs, const Shape& lhs, const Shape& rhs) {
  if (attrs.GetString("lhs_axes", "None") == "None" || attrs.GetString("rhs_axes", "None") == "None") {
    Check(lhs.size() == rhs.size(), Status::kShape,
          attrs.Where() + "cannot broadcast " + ShapeToString(lhs) + " like " + ShapeToString(rhs) +
              " (another number of dimensions)");
    ExpectBroadcastable(attrs, lhs, rhs);
    return rhs;
  }
  const std::vector<int64_t> lhs_axes = attrs.GetTuple("lhs_axes", {});
  const std::vector<int64_t> rhs_axes = attrs.GetTuple("rhs_axes", {});
  Check(!lhs_axes.empty() && lhs_axes.size() == rhs_axes.size(), Status::kShape,
        attrs.Where() + "lhs_axes and rhs_axes must be non-empty and as long as each other");
  Shape out = lhs;
  for (size_t i = 0; i < lhs_axes.size(); ++i) {
    const int64_t from = ResolveAxis(attrs, "lhs_axes", lhs_axes[i], lhs);
    const int64_t to = ResolveAxis(attrs, "rhs_axes", rhs_axes[i], rhs);
    Check(lhs[from] == 1, Status::kShape,
          attrs.Where() + "lhs axis " + std::to_string(lhs_axes[i]) + " of " + ShapeToString(lhs) +
              " has size " + std::to_string(lhs[from]) + "; only size-1 axes broadcast");
    out[from] = rhs[to];
  }
  return out;
}

}  // namespace

Shape BroadcastToOutput(const Attrs& attrs, const std::vector<Shape>& inputs) {
  if (attrs.op() == "broadcast_like") return BroadcastLikeOutput(attrs, inputs[0], inputs[1]);
  if (attrs.op() == "broadcast_to") return BroadcastToShapeOutput(attrs, inputs[0]);
  return BroadcastAxisOutput(attrs, inputs[0]);
}

namespace {

// broadcast_axis, broadcast_to and broadcast_like: size-1 axes of the data repeated to a larger size.
class BroadcastToOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs& attrs) const override {
    if (attrs.op() == "broadcast_like") return {"lhs", "rhs"};
    return {"data"};
  }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    const bool like = attrs.op() == "broadcast_like";
    ExpectInputs(attrs, in, like ? 2 : 1);
    ExpectFloat32(attrs, in);
    Check(!in[0].shape.empty(), Status::kShape, attrs.Where() + "data must have at least 1 dimension");
    std::vector<Shape> shapes;
    for (const TensorType& t : in) shapes.push_back(t.shape);
    return {{BroadcastToOutput(attrs, shapes), in[0].dtype}};
  }
  OpTraits Traits(const Attrs& attrs) const override {
    return MovesData(DataMovement::kEnlarge,
                     attrs.op() == "broadcast_like" ? OutputDType::kOfFirstInput : OutputDType::kOfInputs);
  }
};

const OpRegistrar kRegister({{"broadcast_axis", {"broadcast_axes"}}, {"broadcast_to"}, {"broadcast_like"}},
                            new BroadcastToOp);

}  // namespace
}  // namespace qv
