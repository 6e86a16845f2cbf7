// Convolution on oneDNN (grouped and depthwise too), with the fused post-ops graph passes attach:
// ReLU, leaky ReLU, clip (relu6), GELU and the residual sum; in float32, bfloat16, or int8 where a model's
// int8 hints (ops/int8_hints.h) say how.
#include "backends/cpu/runtime/constant_cache.h"
#include "backends/cpu/runtime/cpu_precision.h"
#include "backends/cpu/kernels/depthwise_int8_avx2.h"
#include "backends/cpu/kernels/gemm_conv_int8_avx2.h"
#include "backends/cpu/kernels/int8_support.h"
#include "backends/cpu/kernels/winograd_convolution.h"
#include "ops/convolution.h"

namespace qv::cpu {
namespace {

using dnnl::memory;

// `sum_scale` and `sum_type`: what the residual's stored values are multiplied by, and their type
// (an int8 residual's scale and type, which may differ from the output's).
dnnl::primitive_attr ConvAttr(const ConvolutionParams& p, float sum_scale = 1.f,
                              memory::data_type sum_type = memory::data_type::undef) {
  dnnl::post_ops ops;
  for (const PostOp& op : p.post_ops) AppendPostOp(ops, op, sum_scale, sum_type);
  dnnl::primitive_attr attr = BaseAttr();
  attr.set_post_ops(ops);
  return attr;
}

memory::dims WeightDims(const ConvolutionParams& p, const Shape& w) {
  memory::dims dims = ToDims(w);
  if (p.num_group > 1) {
    dims[0] /= p.num_group;
    dims.insert(dims.begin(), p.num_group);
  }
  return dims;
}

Desc PlainWeights(const ConvolutionParams& p, const memory::dims& dims, memory::data_type type) {
  if (p.kernel.size() == 3) return Desc(dims, type, p.num_group > 1 ? memory::format_tag::goidhw : memory::format_tag::oidhw);
  return Desc(dims, type, p.num_group > 1 ? memory::format_tag::goihw : memory::format_tag::oihw);
}

// oneDNN counts dilation from 0.
memory::dims Dilates(const ConvolutionParams& p) {
  memory::dims dims;
  for (int64_t d : p.dilate) dims.push_back(d - 1);
  return dims;
}

// Channels last for 2-D (nhwc) or 3-D (ndhwc) convolution data.
memory::format_tag ChannelsLast(const ConvolutionParams& p) {
  return p.kernel.size() == 3 ? memory::format_tag::ndhwc : memory::format_tag::nhwc;
}

// At precision int8, a convolution MXNet quantized (2-D or 3-D): int8 or uint8 data, int8 weights (scaled per
// output channel where MXNet does), float32 bias and accumulation, and an int8, uint8 or float32
// output. The output is kept channels-last, the layout oneDNN's int8 kernels use, so that a residual
// of another int8 type can share it.
KernelBuild BuildInt8Convolution(const KernelRequest& req, const ConvolutionParams& p, const Int8Hints& h) {
  if (KernelBuild depthwise = TryDepthwiseInt8Avx2(req, p, h); depthwise.kernel) return depthwise;
  if (KernelBuild gemm = TryGemmConvInt8Avx2(req, p, h); gemm.kernel) return gemm;
  const ValueInfo& data = req.inputs[0];
  const ValueInfo& weight = req.inputs[1];
  const ValueInfo* bias = p.no_bias ? nullptr : &req.inputs[2];
  const Int8Input in = Int8InputOf(data, h);
  const memory::dims wdims = WeightDims(p, weight.type.shape);
  const auto any = memory::format_tag::any, channels_last = ChannelsLast(p);
  const auto f32 = memory::data_type::f32;
  const bool int8_out = h.out_type != DType::kFloat32;
  const auto out_type = DnnlType(h.out_type);
  const memory::dims out_dims = ToDims(req.outputs[0].shape);
  const Desc dst_any(out_dims, out_type, int8_out ? channels_last : any);

  // A residual sum reads the residual's integers with its own scale; one not int8 with a fixed scale
  // is quantized to int8 with the output's.
  const ValueInfo* sum = p.has_sum() ? &req.inputs.back() : nullptr;
  Quantization sum_quant;
  auto sum_type = out_type;
  if (sum && int8_out) {
    const Quantization quant = QuantizationOf(*sum);
    const bool fixed = IsQuantized(DescOf(*sum)) && quant.scale > 0;
    sum_type = fixed ? DescOf(*sum).get_data_type() : memory::data_type::s8;
    sum_quant = fixed ? quant : Quantization{Int8Hints::Step(h.out_range, 127.5f), 127.5f};
  }
  dnnl::primitive_attr attr = ConvAttr(p, int8_out ? sum_quant.scale : 1.f, int8_out ? sum_type : memory::data_type::undef);
  attr.set_scales_mask(DNNL_ARG_SRC, 0);
  const bool channelwise = Int8ChannelwiseWeights(h);
  attr.set_scales_mask(DNNL_ARG_WEIGHTS, channelwise ? (p.num_group > 1 ? 3 : 1) : 0);
  if (int8_out) attr.set_scales_mask(DNNL_ARG_DST, 0);

  const memory::dims strides(p.stride.begin(), p.stride.end());
  const memory::dims dilates = Dilates(p);
  const memory::dims pad(p.pad.begin(), p.pad.end());
  const Desc bias_desc = bias ? Desc({p.num_filter}, f32, memory::format_tag::a) : Desc();
  const dnnl::convolution_forward::primitive_desc pd(
      CpuEngine(), dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
      Desc(ToDims(data.type.shape), in.type, any), Desc(wdims, memory::data_type::s8, any), bias_desc, dst_any,
      strides, dilates, pad, pad, attr);
  const Desc src = pd.src_desc(), dst = pd.dst_desc();
  ConstantCache& constants = CpuConstants(req);
  const Int8Weights w = QuantizeWeights(constants, weight.constant, PlainWeights(p, wdims, memory::data_type::s8),
                                        pd.weights_desc(), channelwise, h.weight_levels);

  const Quantization out = Int8Output(h);
  Int8Args a = MakeInt8Args(src, dst, pd.weights_desc(), w,
                            bias ? constants.Get(bias->constant, bias_desc, bias_desc) : nullptr, bias_desc,
                            int8_out ? &out : nullptr);
  KernelBuild build;
  AddRuntimeInput(build, 0, src, in.quant);
  AddOutput(build, dst, int8_out ? out : Quantization{});
  if (sum) {
    const Desc sum_desc = int8_out ? Desc(out_dims, sum_type, channels_last) : dst;
    build.accumulate_input = AddRuntimeInput(build, static_cast<int>(req.inputs.size()) - 1, sum_desc, sum_quant);
  }
  build.flops = MultiplyAddFlops(req.outputs[0].shape, weight.type.shape);
  build.kernel = std::make_unique<DnnlKernel>(pd, std::move(a.args), std::move(a.writes));
  return build;
}

KernelBuild BuildConvolution(const KernelRequest& req) {
  const auto p = ConvolutionParams::Parse(req.attrs);
  const ValueInfo& data = req.inputs[0];
  const ValueInfo& weight = req.inputs[1];
  const ValueInfo* bias = p.no_bias ? nullptr : &req.inputs[2];

  if (req.precision == Precision::kInt8) {
    const Int8Hints hints = Int8Hints::Parse(req.attrs);
    Check(!hints.present || (weight.constant && (!bias || bias->constant)), Status::kUnsupported,
          req.attrs.Where() + "an int8 convolution needs its weight and bias to be parameters");
    if (hints.present) return BuildInt8Convolution(req, p, hints);
  }
  if (KernelBuild winograd = TryWinogradConvolution(req, p); winograd.kernel) return winograd;

  const Shape& w = weight.type.shape;
  const memory::dims wdims = WeightDims(p, w);
  const auto any = memory::format_tag::any;
  const auto f32 = memory::data_type::f32;
  // Data and weights in the op's precision; the bias and the accumulation stay float32.
  const auto type = ComputeType(req.precision);
  // A first layer (fewer than 8 input channels: less than one SIMD block) reads the row-major input
  // as it is: oneDNN has direct kernels for that, and its preferred layout would cost a reorder of the
  // whole image (4-7% of the MobileNets at batch 1, see docs/performance.rst).
  const bool plain_src = data.type.shape[1] < 8;
  const Desc src_any = plain_src ? PlainDesc(data.type.shape, type) : Desc(ToDims(data.type.shape), type, any);
  const Desc wei_any(wdims, type, any);
  const Desc bias_desc = bias ? Desc({p.num_filter}, f32, memory::format_tag::a) : Desc();
  const Desc dst_any(ToDims(req.outputs[0].shape), type, any);
  const memory::dims strides(p.stride.begin(), p.stride.end());
  const memory::dims dilates = Dilates(p);
  const memory::dims pad(p.pad.begin(), p.pad.end());

  const dnnl::convolution_forward::primitive_desc pd(CpuEngine(), dnnl::prop_kind::forward_inference,
                                                       dnnl::algorithm::convolution_direct, src_any, wei_any,
                                                       bias_desc, dst_any, strides, dilates, pad, pad, ConvAttr(p));
  const Desc src = pd.src_desc(), wei = pd.weights_desc(), dst = pd.dst_desc();

  ConstantCache& constants = CpuConstants(req);
  KernelBuild build;
  std::unordered_map<int, ArgSource> args;
  args[DNNL_ARG_SRC] = {ArgSource::kInput, AddRuntimeInput(build, 0, src), nullptr, src};
  args[DNNL_ARG_DST] = {ArgSource::kOutput, 0, nullptr, dst};
  const Desc wei_plain = PlainWeights(p, wdims, f32);
  if (weight.constant) {
    args[DNNL_ARG_WEIGHTS] = {ArgSource::kConstant, 0, constants.Get(weight.constant, wei_plain, wei), wei};
  } else {
    // A weight the graph computes (SiamRPN's correlation): row-major from the plan, packed per run.
    const int at = AddRuntimeInput(build, 1, PlainDesc(w));
    args[DNNL_ARG_WEIGHTS] = wei == wei_plain ? ArgSource{ArgSource::kInput, at, nullptr, wei}
                                              : ArgSource{ArgSource::kPackedInput, at, nullptr, wei, 0, wei_plain};
  }
  if (bias && bias->constant)
    args[DNNL_ARG_BIAS] = {ArgSource::kConstant, 0, constants.Get(bias->constant, bias_desc, bias_desc), bias_desc};
  else if (bias)
    args[DNNL_ARG_BIAS] = {ArgSource::kInput, AddRuntimeInput(build, 2, bias_desc), nullptr, bias_desc};
  if (p.has_sum()) build.accumulate_input = AddRuntimeInput(build, static_cast<int>(req.inputs.size()) - 1, dst);
  AddOutput(build, dst);
  build.flops = MultiplyAddFlops(req.outputs[0].shape, w);
  build.kernel = std::make_unique<DnnlKernel>(pd, std::move(args));
  return build;
}

const CpuKernelRegistrar kRegister({"Convolution"}, BuildConvolution, true);

}  // namespace
}  // namespace qv::cpu
