// Deconvolution on oneDNN's deconvolution_forward (1-D and 2-D, grouped too), with the element-wise post-ops graph
// passes fuse (ReLU, leaky ReLU, clip). MXNet's weight (in_channels, num_filter / groups, kh, kw) is
// oneDNN's "io(h)w" per group; the cache packs it once into the primitive's layout. MXNet's crop by pad
// and extension by adj are oneDNN's left padding `pad` and right padding `pad - adj` (which may be
// negative: output rows past the scattered span, holding only the bias). Always float32, in bfloat16 and
// int8 plans too: MXNet's AMP keeps Deconvolution in float32 (its FP32_FUNCS: "possible overflows"), and
// its quantization does not cover it.
#include "backends/cpu/runtime/constant_cache.h"
#include "ops/deconvolution.h"

namespace qv::cpu {
namespace {

using dnnl::memory;

dnnl::primitive_attr DeconvAttr(const DeconvolutionParams& p) {
  dnnl::post_ops ops;
  for (const PostOp& op : p.post_ops) AppendPostOp(ops, op);  // a sum is refused by DeconvolutionParams::Parse
  dnnl::primitive_attr attr = BaseAttr();
  attr.set_post_ops(ops);
  return attr;
}

KernelBuild BuildDeconvolution(const KernelRequest& req) {
  const auto p = DeconvolutionParams::Parse(req.attrs);
  const ValueInfo& data = req.inputs[0];
  const ValueInfo& weight = req.inputs[1];
  Check(weight.constant != nullptr, Status::kUnsupported, req.attrs.Where() + "weight must be a parameter");
  const ValueInfo* bias = p.no_bias ? nullptr : &req.inputs[2];
  Check(!bias || bias->constant, Status::kUnsupported, req.attrs.Where() + "bias must be a parameter");
  const auto geometry = p.Resolve(req.attrs, data.type.shape);

  const Shape& w = weight.type.shape;  // (in_channels, filters per group, kernel...)
  const int64_t g = p.num_group;
  const bool one_d = p.ndim() == 1;
  // oneDNN's logical weight dims are (groups,) out, in per group, kernel...; "(g)io(h)w" reads MXNet's order.
  memory::dims wdims = {w[1], w[0] / g};
  if (g > 1) wdims.insert(wdims.begin(), g);
  wdims.insert(wdims.end(), w.begin() + 2, w.end());
  using tag = memory::format_tag;
  // (oneDNN names no 1-D io order: "acbd" and "bac" are giow and iow)
  const tag plain = g > 1 ? (one_d ? tag::acbd : tag::giohw) : (one_d ? tag::bac : tag::iohw);
  const Desc wei_plain(wdims, memory::data_type::f32, plain);
  const auto any = tag::any;
  const auto type = memory::data_type::f32;
  const Desc src_any(ToDims(data.type.shape), type, any);
  const Desc wei_any(wdims, type, any);
  const Desc bias_desc = bias ? Desc({p.num_filter}, memory::data_type::f32, tag::a) : Desc();
  const Desc dst_any(ToDims(req.outputs[0].shape), type, any);
  const memory::dims strides(p.stride.begin(), p.stride.end());
  memory::dims dilates, pad_r;
  for (size_t i = 0; i < p.ndim(); ++i) {
    dilates.push_back(p.dilate[i] - 1);
    pad_r.push_back(geometry.pad[i] - geometry.adj[i]);
  }
  const memory::dims pad_l(geometry.pad.begin(), geometry.pad.end());

  const dnnl::deconvolution_forward::primitive_desc pd(
      CpuEngine(), dnnl::prop_kind::forward_inference, dnnl::algorithm::deconvolution_direct, src_any, wei_any,
      bias_desc, dst_any, strides, dilates, pad_l, pad_r, DeconvAttr(p));
  const Desc src = pd.src_desc(), wei = pd.weights_desc(), dst = pd.dst_desc();

  ConstantCache& constants = CpuConstants(req);
  std::unordered_map<int, ArgSource> args;
  args[DNNL_ARG_SRC] = {ArgSource::kInput, 0, nullptr, src};
  args[DNNL_ARG_DST] = {ArgSource::kOutput, 0, nullptr, dst};
  args[DNNL_ARG_WEIGHTS] = {ArgSource::kConstant, 0, constants.Get(weight.constant, wei_plain, wei), wei};
  if (bias) args[DNNL_ARG_BIAS] = {ArgSource::kConstant, 0, constants.Get(bias->constant, bias_desc, bias_desc), bias_desc};

  KernelBuild build;
  AddRuntimeInput(build, 0, src);
  AddOutput(build, dst);
  // Every input pixel meets every weight of its group once: 2 flops each.
  build.flops = 2.0 * static_cast<double>(ElementCount(data.type.shape)) * static_cast<double>(ElementCount(w) / w[0]);
  build.kernel = std::make_unique<DnnlKernel>(pd, std::move(args));
  return build;
}

const CpuKernelRegistrar kRegister({"Deconvolution"}, BuildDeconvolution);

}  // namespace
}  // namespace qv::cpu
