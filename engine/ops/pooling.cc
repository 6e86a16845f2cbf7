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
  Check(layout == "None" || layout == "NCHW", Status::kUnsupported, attrs.Where() + "layout " + layout + " is not supported");
  p.kernel = attrs.GetTuple("kernel", {});
  p.stride = attrs.GetTuple("stride", {1, 1});
  p.pad = attrs.GetTuple("pad", {0, 0});
  if (p.stride.empty()) p.stride = {1, 1};
  if (p.pad.empty()) p.pad = {0, 0};
  if (!p.global) {
    Check(p.kernel.size() == 2, Status::kUnsupported, attrs.Where() + "only 2-D pooling is supported (kernel needs 2 values)");
    Check(p.stride.size() == 2 && p.pad.size() == 2, Status::kParse, attrs.Where() + "stride and pad need 2 values");
    for (int i = 0; i < 2; ++i)
      Check(p.kernel[i] > 0 && p.stride[i] > 0 && p.pad[i] >= 0 && p.pad[i] < p.kernel[i], Status::kParse,
            attrs.Where() + "kernel and stride must be positive and 0 <= pad < kernel");
  }
  return p;
}

Shape PoolingParams::Resolve(const Attrs& attrs, const Shape& x) {
  if (global) {
    kernel = {x[2], x[3]};
    stride = {1, 1};
    pad = {0, 0};
    return {x[0], x[1], 1, 1};
  }
  Shape out = {x[0], x[1], 0, 0};
  for (int i = 0; i < 2; ++i) {
    const int64_t room = x[2 + i] + 2 * pad[i] - kernel[i];
    Check(room >= 0, Status::kShape, attrs.Where() + "kernel larger than padded input " + ShapeToString(x));
    out[2 + i] = (full_convention ? (room + stride[i] - 1) / stride[i] : room / stride[i]) + 1;
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
    ExpectNdim(attrs, in[0], "data", 4);
    return {{p.Resolve(attrs, in[0].shape), DType::kFloat32}};
  }
};

const OpRegistrar kRegister({{"Pooling"}}, new PoolingOp);

}  // namespace
}  // namespace qv
