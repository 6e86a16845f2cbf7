#include "ops/pooling.h"

#include "common/error.h"

namespace qv {

PoolingParams PoolingParams::Parse(const Attrs& attrs) {
  PoolingParams p;
  const std::string type = attrs.GetString("pool_type", "max");
  Check(type == "max" || type == "avg" || type == "sum", Status::kUnsupported,
        attrs.Where() + "pool_type '" + type + "' is not supported");
  p.type = type == "max" ? kMax : type == "avg" ? kAvg : kSum;
  p.global = attrs.GetBool("global_pool", false);
  const std::string conv = attrs.GetString("pooling_convention", "valid");
  Check(conv == "valid" || conv == "full", Status::kUnsupported,
        attrs.Where() + "pooling_convention '" + conv + "' is not supported");
  p.full_convention = conv == "full";
  p.count_include_pad = attrs.GetBool("count_include_pad", true);
  const std::string layout = attrs.GetString("layout", "None");
  Check(layout == "None" || layout == "NCHW" || layout == "NCDHW", Status::kUnsupported,
        attrs.Where() + "layout " + layout + " is not supported");
  p.kernel = attrs.GetTuple("kernel", {});
  p.stride = attrs.GetTuple("stride", {});
  p.pad = attrs.GetTuple("pad", {});
  if (!p.global) {
    const size_t n = p.kernel.size();
    Check(n == 2 || n == 3, Status::kUnsupported,
          attrs.Where() + "only 2-D and 3-D pooling are supported (kernel needs 2 or 3 values)");
    if (p.stride.empty()) p.stride.assign(n, 1);
    if (p.pad.empty()) p.pad.assign(n, 0);
    Check(p.stride.size() == n && p.pad.size() == n, Status::kParse,
          attrs.Where() + "stride and pad need " + std::to_string(n) + " values, as kernel has");
    for (size_t i = 0; i < n; ++i)
      Check(p.kernel[i] > 0 && p.stride[i] > 0 && p.pad[i] >= 0 && p.pad[i] < p.kernel[i], Status::kParse,
            attrs.Where() + "kernel and stride must be positive and 0 <= pad < kernel");
  }
  return p;
}

Shape PoolingParams::Resolve(const Attrs& attrs, const Shape& x) {
  if (global) {
    kernel.assign(x.begin() + 2, x.end());
    stride.assign(x.size() - 2, 1);
    pad.assign(x.size() - 2, 0);
    Shape out(x.size(), 1);
    out[0] = x[0];
    out[1] = x[1];
    return out;
  }
  Check(x.size() == kernel.size() + 2, Status::kShape,
        attrs.Where() + "a " + std::to_string(kernel.size()) + "-D kernel needs data of " +
            std::to_string(kernel.size() + 2) + " dimensions, got " + ShapeToString(x));
  Shape out = {x[0], x[1]};
  for (size_t i = 0; i < kernel.size(); ++i) {
    const std::string axis = attrs.Where() + "axis " + std::to_string(i) + ": ";
    const int64_t room = CheckedAdd(x[2 + i], CheckedMul(2, pad[i], axis + "pad"), axis + "the padded input") - kernel[i];
    Check(room >= 0, Status::kShape, attrs.Where() + "kernel larger than padded input " + ShapeToString(x));
    out.push_back((full_convention ? CheckedAdd(room, stride[i] - 1, axis + "the padded input") / stride[i]
                                   : room / stride[i]) + 1);
  }
  return out;
}

namespace {

class PoolingOp : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    auto p = PoolingParams::Parse(attrs);
    ExpectInputs(attrs, in, 1);
    ExpectFloat32(attrs, in);
    Check(in[0].shape.size() == 4 || in[0].shape.size() == 5, Status::kShape,
          attrs.Where() + "data must be NCHW or NCDHW, got " + ShapeToString(in[0].shape));
    return {{p.Resolve(attrs, in[0].shape), DType::kFloat32}};
  }
};

const OpRegistrar kRegister({{"Pooling"}}, new PoolingOp);

}  // namespace
}  // namespace qv
