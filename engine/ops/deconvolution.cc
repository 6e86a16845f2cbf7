#include "ops/deconvolution.h"

#include <algorithm>

#include "common/error.h"

namespace qv {
namespace {

// MXNet leaves an absent stride/dilate/pad/adj at its per-axis default.
std::vector<int64_t> TupleOr(const Attrs& attrs, const char* key, int64_t fallback, size_t ndim) {
  std::vector<int64_t> t = attrs.GetTuple(key, {});
  if (t.empty()) t.assign(ndim, fallback);
  Check(t.size() == ndim, Status::kParse,
        attrs.Where() + key + " needs " + std::to_string(ndim) + " values like kernel, got " + std::to_string(t.size()));
  return t;
}

}  // namespace

DeconvolutionParams DeconvolutionParams::Parse(const Attrs& attrs) {
  DeconvolutionParams p;
  p.kernel = attrs.GetTuple("kernel", {});
  const size_t nd = p.kernel.size();
  Check(nd == 1 || nd == 2, Status::kUnsupported,
        attrs.Where() + "only 1-D and 2-D deconvolution are supported (kernel has " + std::to_string(nd) + " values)");
  p.stride = TupleOr(attrs, "stride", 1, nd);
  p.dilate = TupleOr(attrs, "dilate", 1, nd);
  p.pad = TupleOr(attrs, "pad", 0, nd);
  p.adj = TupleOr(attrs, "adj", 0, nd);
  p.target_shape = attrs.GetTuple("target_shape", {});
  Check(p.target_shape.empty() || p.target_shape.size() == nd, Status::kParse,
        attrs.Where() + "target_shape needs " + std::to_string(nd) + " values, got " +
            std::to_string(p.target_shape.size()));
  p.num_filter = attrs.RequireInt("num_filter");
  p.num_group = attrs.GetInt("num_group", 1);
  p.no_bias = attrs.GetBool("no_bias", true);
  const std::string layout = attrs.GetString("layout", "None");
  const std::string plain = nd == 1 ? "NCW" : "NCHW";
  Check(layout == "None" || layout == plain, Status::kUnsupported,
        attrs.Where() + "layout " + layout + " is not supported (only " + plain + ")");
  for (size_t i = 0; i < nd; ++i) {
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
  const size_t nd = ndim();
  Geometry g;
  g.pad.resize(nd);
  g.adj.resize(nd);
  g.output = data;
  g.output[1] = num_filter;
  // As MXNet: one non-zero entry of target_shape is enough for every axis to be derived from it.
  bool targeted = false;
  for (int64_t t : target_shape) targeted = targeted || t != 0;
  for (size_t i = 0; i < nd; ++i) {
    const std::string axis = attrs.Where() + "axis " + std::to_string(i) + ": ";
    const int64_t full = CheckedAdd(
        CheckedAdd(CheckedMul(stride[i], data[2 + i] - 1, axis + "stride x input"),
                   CheckedMul(dilate[i], kernel[i] - 1, axis + "dilate x kernel"), axis + "the output"),
        1, axis + "the output");
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
    g.output[2 + i] = CheckedAdd(full - CheckedMul(2, g.pad[i], axis + "pad"), g.adj[i], axis + "the output");
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
      std::string expected = "(in_channels, " + std::to_string(p.num_filter / p.num_group);
      for (int64_t k : p.kernel) expected += ", " + std::to_string(k);
      Check(w.size() == 2 + p.ndim() && w[1] == p.num_filter / p.num_group &&
                std::equal(p.kernel.begin(), p.kernel.end(), w.begin() + 2),
            Status::kShape, attrs.Where() + "weight has shape " + ShapeToString(w) + ", expected " + expected + ")");
    }
    if (!p.no_bias && params.size() > 2 && params[2]) ExpectParamShape(attrs, "bias", *params[2], {p.num_filter});
  }

  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    const auto p = DeconvolutionParams::Parse(attrs);
    ExpectInputs(attrs, in, InputNames(attrs).size());
    ExpectFloat32(attrs, in);
    ExpectNdim(attrs, in[0], "data", 2 + p.ndim());
    const Shape& x = in[0].shape;
    Check(x[1] % p.num_group == 0, Status::kShape,
          attrs.Where() + "data channels " + std::to_string(x[1]) + " are not a multiple of num_group " +
              std::to_string(p.num_group));
    Shape weight = {x[1], p.num_filter / p.num_group};
    weight.insert(weight.end(), p.kernel.begin(), p.kernel.end());
    ExpectParamShape(attrs, "weight", in[1].shape, weight);
    if (!p.no_bias) ExpectParamShape(attrs, "bias", in[2].shape, {p.num_filter});
    return {{p.Resolve(attrs, x).output, DType::kFloat32}};
  }
};

const OpRegistrar kRegister({{"Deconvolution"}}, new DeconvolutionOp);

}  // namespace
}  // namespace qv
