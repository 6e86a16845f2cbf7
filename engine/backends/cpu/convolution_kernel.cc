// Convolution on oneDNN (grouped and depthwise too), with the fused post-ops graph passes attach:
// ReLU, leaky ReLU, clip (relu6) and the residual sum.
#include "backends/cpu/constant_cache.h"
#include "backends/cpu/cpu_precision.h"
#include "ops/convolution.h"

namespace qv::cpu {
namespace {

using dnnl::memory;

dnnl::primitive_attr ConvAttr(const ConvolutionParams& p) {
  dnnl::post_ops ops;
  for (const PostOp& op : p.post_ops) {
    switch (op.kind) {
      case PostOp::kRelu: ops.append_eltwise(dnnl::algorithm::eltwise_relu, 0.f, 0.f); break;
      case PostOp::kLeakyRelu: ops.append_eltwise(dnnl::algorithm::eltwise_relu, op.alpha, 0.f); break;
      case PostOp::kClip: ops.append_eltwise(dnnl::algorithm::eltwise_clip, op.alpha, op.beta); break;
      case PostOp::kSum: ops.append_sum(1.f); break;
    }
  }
  dnnl::primitive_attr attr = BaseAttr();
  attr.set_post_ops(ops);
  return attr;
}

KernelBuild BuildConvolution(const KernelRequest& req) {
  const auto p = ConvolutionParams::Parse(req.attrs);
  const ValueInfo& data = req.inputs[0];
  const ValueInfo& weight = req.inputs[1];
  Check(weight.constant != nullptr, Status::kUnsupported, req.attrs.Where() + "weight must be a parameter");
  const ValueInfo* bias = p.no_bias ? nullptr : &req.inputs[2];
  Check(!bias || bias->constant, Status::kUnsupported, req.attrs.Where() + "bias must be a parameter");

  const Shape& w = weight.type.shape;
  memory::dims wdims = ToDims(w);
  if (p.num_group > 1) wdims = {p.num_group, w[0] / p.num_group, w[1], w[2], w[3]};
  const auto any = memory::format_tag::any;
  const auto f32 = memory::data_type::f32;
  // Data and weights in the op's precision; the bias and the accumulation stay float32.
  const auto type = ComputeType(req.precision);
  // A first layer (fewer than 8 input channels: less than one SIMD block) reads the row-major input
  // as it is: oneDNN has direct kernels for that, and its preferred layout would cost a reorder of the
  // whole image (4-7% of the MobileNets at batch 1, see README: Performance).
  const bool plain_src = data.type.shape.size() == 4 && data.type.shape[1] < 8;
  const Desc src_any = plain_src ? PlainDesc(data.type.shape, type) : Desc(ToDims(data.type.shape), type, any);
  const Desc wei_any(wdims, type, any);
  const Desc bias_desc = bias ? Desc({p.num_filter}, f32, memory::format_tag::a) : Desc();
  const Desc dst_any(ToDims(req.outputs[0].shape), type, any);
  const memory::dims strides(p.stride.begin(), p.stride.end());
  const memory::dims dilates = {p.dilate[0] - 1, p.dilate[1] - 1};
  const memory::dims pad(p.pad.begin(), p.pad.end());

  const dnnl::convolution_forward::primitive_desc pd(CpuEngine(), dnnl::prop_kind::forward_inference,
                                                       dnnl::algorithm::convolution_direct, src_any, wei_any,
                                                       bias_desc, dst_any, strides, dilates, pad, pad, ConvAttr(p));
  const Desc src = pd.src_desc(), wei = pd.weights_desc(), dst = pd.dst_desc();

  std::unordered_map<int, ArgSource> args;
  args[DNNL_ARG_SRC] = {ArgSource::kInput, 0, nullptr, src};
  args[DNNL_ARG_DST] = {ArgSource::kOutput, 0, nullptr, dst};
  const Desc wei_plain(wdims, f32, p.num_group > 1 ? memory::format_tag::goihw : memory::format_tag::oihw);
  args[DNNL_ARG_WEIGHTS] = {ArgSource::kConstant, 0, req.constants.Get(weight.constant, wei_plain, wei), wei};
  if (bias) args[DNNL_ARG_BIAS] = {ArgSource::kConstant, 0, req.constants.Get(bias->constant, bias_desc, bias_desc), bias_desc};

  KernelBuild build;
  build.runtime_inputs = {0};
  build.input_descs = {src};
  if (p.has_sum()) {
    build.runtime_inputs.push_back(static_cast<int>(req.inputs.size()) - 1);
    build.input_descs.push_back(dst);
    build.accumulate_input = 1;
  }
  build.output_descs = {dst};
  build.flops = MultiplyAddFlops(req.outputs[0].shape, w);
  build.kernel = std::make_unique<DnnlKernel>(pd, std::move(args));
  return build;
}

const CpuKernelRegistrar kRegister({"Convolution"}, BuildConvolution);

}  // namespace
}  // namespace qv::cpu
