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

namespace {

// transpose(axes): output dimension d is input dimension axes[d].
class TransposeOp : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 1);
    ExpectFloat32(attrs, in);
    const Shape& x = in[0].shape;
    Check(!x.empty(), Status::kShape, attrs.Where() + "data must have at least 1 dimension");
    Shape out;
    for (int64_t a : TransposeAxes(attrs, x.size())) out.push_back(x[a]);
    return {{out, in[0].dtype}};
  }
};

const OpRegistrar kRegister({{"transpose"}}, new TransposeOp);

}  // namespace
}  // namespace qv
