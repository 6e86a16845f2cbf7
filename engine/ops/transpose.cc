#include <utility>

#include "common/error.h"
#include "ops/shape_ops.h"

namespace qv {

std::vector<int64_t> TransposeAxes(const Attrs& attrs, size_t ndim) {
  std::vector<int64_t> axes = attrs.GetTuple("axes", {});
  const int64_t n = static_cast<int64_t>(ndim);
  if (axes.empty()) {
    for (int64_t d = n - 1; d >= 0; --d) axes.push_back(d);
    return axes;
  }
  const std::string shown = attrs.GetString("axes", "");
  Check(axes.size() == ndim, Status::kShape,
        attrs.Where() + "axes " + shown + " must name each of the data's " + std::to_string(ndim) + " dimensions");
  std::vector<bool> seen(ndim, false);
  for (int64_t a : axes) {
    // MXNet 1.x's transpose takes no negative axes either.
    Check(a >= 0 && a < n, Status::kShape, attrs.Where() + "axes " + shown + " has an axis outside 0.." + std::to_string(n - 1));
    Check(!seen[a], Status::kShape, attrs.Where() + "axes " + shown + " repeats axis " + std::to_string(a));
    seen[a] = true;
  }
  return axes;
}

std::vector<int64_t> SwapAxisAxes(const Attrs& attrs, size_t ndim) {
  const int64_t n = static_cast<int64_t>(ndim);
  auto axis = [&](const char* key) {
    int64_t a = attrs.GetInt(key, 0);
    Check(a >= -n && a < n, Status::kShape,
          attrs.Where() + key + " " + std::to_string(a) + " is out of range for data of " + std::to_string(n) +
              " dimensions");
    return a < 0 ? a + n : a;
  };
  std::vector<int64_t> axes(ndim);
  for (int64_t d = 0; d < n; ++d) axes[d] = d;
  std::swap(axes[axis("dim1")], axes[axis("dim2")]);  // equal axes: a plain copy, as MXNet does
  return axes;
}

namespace {

// transpose(axes) and SwapAxis(dim1, dim2): output dimension d is input dimension axes[d].
class PermuteOp : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 1);
    ExpectFloat32(attrs, in);
    const Shape& x = in[0].shape;
    Check(!x.empty(), Status::kShape, attrs.Where() + "data must have at least 1 dimension");
    Shape out;
    const bool swap = attrs.op() == "SwapAxis";
    for (int64_t a : swap ? SwapAxisAxes(attrs, x.size()) : TransposeAxes(attrs, x.size())) out.push_back(x[a]);
    return {{out, in[0].dtype}};
  }
  OpTraits Traits(const Attrs&) const override { return MovesData(DataMovement::kStrided); }
};

const OpRegistrar kRegister({{"transpose"}, {"SwapAxis", {"swapaxes"}}}, new PermuteOp);

}  // namespace
}  // namespace qv
