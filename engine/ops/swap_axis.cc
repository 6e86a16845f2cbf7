#include "common/error.h"
#include "ops/shape_ops.h"

namespace qv {

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

// SwapAxis(dim1, dim2): the two axes exchanged (negative ones count from the end).
class SwapAxisOp : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 1);
    ExpectFloat32(attrs, in);
    const Shape& x = in[0].shape;
    Check(!x.empty(), Status::kShape, attrs.Where() + "data must have at least 1 dimension");
    Shape out;
    for (int64_t a : SwapAxisAxes(attrs, x.size())) out.push_back(x[a]);
    return {{out, in[0].dtype}};
  }
};

const OpRegistrar kRegister({{"SwapAxis", {"swapaxes"}}}, new SwapAxisOp);

}  // namespace
}  // namespace qv
