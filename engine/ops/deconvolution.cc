#include "ops/deconvolution.h"

#include "common/error.h"

namespace qv {
namespace {

// MXNet leaves an absent stride/dilate/pad/adj at its per-axis default.
std::vector<int64_t> TupleOr(const Attrs& attrs, const char* key, int64_t fallback) {
  std::vector<int64_t> t = attrs.GetTuple(key, {});
  if (t.empty()) t = {fallback, fallback};
  Check(t.size() == 2, Status::kParse,
        attrs.Where() + key + " needs 2 values like kernel, got " + std::to_string(t.size()));
  return t;
}

}  // namespace

DeconvolutionParams DeconvolutionParams::Parse(const Attrs& attrs) {
  DeconvolutionParams p;
  p.kernel = attrs.GetTuple("kernel", {});
  Check(p.kernel.size() == 2, Status::kUnsupported,
        attrs.Where() + "only 2-D deconvolution is supported (kernel needs 2 values, got " +
            std::to_string(p.kernel.size()) + ")");
  p.stride = TupleOr(attrs, "stride", 1);
  p.dilate = TupleOr(attrs, "dilate", 1);
  p.pad = TupleOr(attrs, "pad", 0);
  p.adj = TupleOr(attrs, "adj", 0);
  p.target_shape = attrs.GetTuple("target_shape", {});
  Check(p.target_shape.empty() || p.target_shape.size() == 2, Status::kParse,
        attrs.Where() + "target_shape needs 2 values, got " + std::to_string(p.target_shape.size()));
  p.num_filter = attrs.RequireInt("num_filter");
  p.num_group = attrs.GetInt("num_group", 1);
  p.no_bias = attrs.GetBool("no_bias", true);
  const std::string layout = attrs.GetString("layout", "None");
  Check(layout == "None" || layout == "NCHW", Status::kUnsupported,
        attrs.Where() + "layout " + layout + " is not supported (only NCHW)");
  for (int i = 0; i < 2; ++i) {
    Check(p.kernel[i] > 0 && p.stride[i] > 0 && p.dilate[i] > 0 && p.pad[i] >= 0 && p.adj[i] >= 0, Status::kParse,
          attrs.Where() + "kernel, stride and dilate must be positive, pad and adj non-negative");
    Check(p.target_shape.empty() || p.target_shape[i] >= 0, Status::kParse,
          attrs.Where() + "target_shape must be non-negative");
  }
  Check(p.num_filter > 0 && p.num_group > 0 && p.num_filter % p.num_group == 0, Status::kParse,
        attrs.Where() + "num_filter must be a positive multiple of num_group");
  p.post_ops = attrs.post_ops();
  for (const PostOp& op : p.post_ops)
    Check(op.kind != PostOp::kSum, Status::kInternal, attrs.Where() + "a residual sum cannot be fused here");
  return p;
}

DeconvolutionParams::Geometry DeconvolutionParams::Resolve(const Attrs& attrs, const Shape& data) const {
  Geometry g;
  g.output = {data[0], num_filter, 0, 0};
  // As MXNet: one non-zero entry of target_shape is enough for both axes to be derived from it.
  const bool targeted = !target_shape.empty() && (target_shape[0] != 0 || target_shape[1] != 0);
  for (int i = 0; i < 2; ++i) {
    const int64_t full = stride[i] * (data[2 + i] - 1) + dilate[i] * (kernel[i] - 1) + 1;
    if (targeted) {
      Check(full >= target_shape[i], Status::kShape,
            attrs.Where() + "target_shape " + ShapeToString(target_shape) + " is larger than the " +
                std::to_string(full) + " rows/columns the kernel spans over input " + ShapeToString(data));
      const int64_t crop = full - target_shape[i];
      g.adj[i] = crop % 2;
      g.pad[i] = (crop + 1) / 2;
    } else {
      g.pad[i] = pad[i];
      g.adj[i] = adj[i];
    }
    Check(g.adj[i] < stride[i], Status::kShape,
          attrs.Where() + "adj " + std::to_string(g.adj[i]) + " (axis " + std::to_string(i) +
              (targeted ? ", from target_shape" : "") + ") must be smaller than stride " + std::to_string(stride[i]));
    g.output[2 + i] = full - 2 * g.pad[i] + g.adj[i];
    Check(g.output[2 + i] > 0, Status::kShape,
          attrs.Where() + "pad " + ShapeToString(pad) + " crops the whole output of input " + ShapeToString(data) +
              (targeted ? " (target_shape " + ShapeToString(target_shape) + ")" : ""));
  }
  return g;
}

namespace {

class DeconvolutionOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs& attrs) const override {
    if (DeconvolutionParams::Parse(attrs).no_bias) return {"data", "weight"};
    return {"data", "weight", "bias"};
  }

  std::vector<int> ParamInputs(const Attrs& attrs) const override {
    if (DeconvolutionParams::Parse(attrs).no_bias) return {1};
    return {1, 2};
  }

  void CheckParams(const Attrs& attrs, const std::vector<const Shape*>& params) const override {
    const auto p = DeconvolutionParams::Parse(attrs);
    if (params.size() > 1 && params[1]) {
      const Shape& w = *params[1];
      Check(w.size() == 4 && w[1] == p.num_filter / p.num_group && w[2] == p.kernel[0] && w[3] == p.kernel[1],
            Status::kShape,
            attrs.Where() + "weight has shape " + ShapeToString(w) + ", expected (in_channels, " +
                std::to_string(p.num_filter / p.num_group) + ", " + std::to_string(p.kernel[0]) + ", " +
                std::to_string(p.kernel[1]) + ")");
    }
    if (!p.no_bias && params.size() > 2 && params[2]) ExpectParamShape(attrs, "bias", *params[2], {p.num_filter});
  }

  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    const auto p = DeconvolutionParams::Parse(attrs);
    ExpectInputs(attrs, in, InputNames(attrs).size());
    ExpectFloat32(attrs, in);
    ExpectNdim(attrs, in[0], "data", 4);
    const Shape& x = in[0].shape;
    Check(x[1] % p.num_group == 0, Status::kShape,
          attrs.Where() + "data channels " + std::to_string(x[1]) + " are not a multiple of num_group " +
              std::to_string(p.num_group));
    ExpectParamShape(attrs, "weight", in[1].shape, {x[1], p.num_filter / p.num_group, p.kernel[0], p.kernel[1]});
    if (!p.no_bias) ExpectParamShape(attrs, "bias", in[2].shape, {p.num_filter});
    return {{p.Resolve(attrs, x).output, DType::kFloat32}};
  }
};

const OpRegistrar kRegister({{"Deconvolution"}}, new DeconvolutionOp);

}  // namespace
}  // namespace qv
