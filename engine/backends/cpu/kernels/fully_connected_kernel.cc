// FullyConnected on oneDNN's inner product, with the element-wise post-ops graph passes fuse into it
// (ReLU, GELU, ...). A flattening FC over a 4-D input reads the producer's layout directly (the weights
// take the matching 4-D view); other cases see row-major 2-D views.
#include "backends/cpu/runtime/constant_cache.h"
#include "backends/cpu/runtime/cpu_precision.h"
#include "backends/cpu/kernels/int8_support.h"
#include "ops/fully_connected.h"

namespace qv::cpu {
namespace {

using dnnl::memory;

// BaseAttr with the node's fused post-ops: element-wise ones, and a residual sum.
dnnl::primitive_attr FullyConnectedAttr(const KernelRequest& req) {
  dnnl::post_ops ops;
  for (const PostOp& op : req.attrs.post_ops()) AppendPostOp(ops, op);
  dnnl::primitive_attr attr = BaseAttr();
  attr.set_post_ops(ops);
  return attr;
}

// At precision int8, an inner product MXNet quantized: int8 or uint8 data, int8 weights with one
// scale, float32 bias and accumulation, and an int8, uint8 or float32 output, row-major.
KernelBuild BuildInt8FullyConnected(const KernelRequest& req, const FullyConnectedParams& p, const Int8Hints& h) {
  const ValueInfo& data = req.inputs[0];
  const ValueInfo& weight = req.inputs[1];
  const Shape& x = data.type.shape;
  const int64_t k = weight.type.shape[1];
  const int64_t rows = ElementCount(x) / k;
  const Int8Input in = Int8InputOf(data, h);
  // A weight the graph computes arrives as the (num_hidden, K) matrix it is: the data is viewed in 2-D to match.
  const bool view_4d = p.flatten && x.size() == 4 && weight.constant;
  const memory::dims wdims = view_4d ? memory::dims{p.num_hidden, x[1], x[2], x[3]} : memory::dims{p.num_hidden, k};
  const auto wtag = view_4d ? memory::format_tag::oihw : memory::format_tag::ab;
  Desc src = Desc({rows, k}, in.type, memory::format_tag::ab);
  if (view_4d) src = IsQuantized(DescOf(data)) ? DescOf(data) : Desc(ToDims(x), in.type, memory::format_tag::any);
  const bool int8_out = h.out_type != DType::kFloat32;
  const Desc dst({rows, p.num_hidden}, DnnlType(h.out_type), memory::format_tag::ab);
  const Desc bias = p.no_bias ? Desc() : Desc({p.num_hidden}, memory::data_type::f32, memory::format_tag::a);
  dnnl::primitive_attr attr = BaseAttr();  // nothing is fused into a quantized one (cpu_backend.cc)
  attr.set_scales_mask(DNNL_ARG_SRC, 0);
  const bool channelwise = Int8ChannelwiseWeights(h);
  attr.set_scales_mask(DNNL_ARG_WEIGHTS, channelwise ? 1 : 0);
  if (int8_out) attr.set_scales_mask(DNNL_ARG_DST, 0);
  const auto make_pd = [&](const Desc& data_desc) {
    return dnnl::inner_product_forward::primitive_desc(CpuEngine(), dnnl::prop_kind::forward_inference, data_desc,
                                                       Desc(wdims, memory::data_type::s8, memory::format_tag::any),
                                                       bias, dst, attr);
  };
  dnnl::inner_product_forward::primitive_desc pd = make_pd(src);
  // Without int8 dot products (AVX2, no VNNI) oneDNN's int8 inner product is a GEMM whose data and weights
  // layouts must agree; it cannot match some producer layouts (NHWC data over a 1x1 image, as after
  // ResNet's global pooling) and falls back to its reference kernel, 13 ms for ResNet-18's classifier.
  // Letting oneDNN pick the data's layout too costs one reorder of the data instead.
  if (view_4d && IsReferenceImpl(pd)) pd = make_pd(Desc(ToDims(x), in.type, memory::format_tag::any));
  src = pd.src_desc();
  const Desc input_desc = view_4d ? src : PlainDesc(x, in.type);
  ConstantCache& constants = CpuConstants(req);
  const Int8Weights w = QuantizeWeights(constants, weight.constant, Desc(wdims, memory::data_type::s8, wtag),
                                        pd.weights_desc(), channelwise, h.weight_levels);

  const Quantization out = Int8Output(h);
  // src is the input's layout, or a 2-D view of its row-major bytes: the scale follows the same bytes.
  Int8Args a = MakeInt8Args(src, dst, pd.weights_desc(), w,
                            p.no_bias ? nullptr : constants.Get(req.inputs[2].constant, bias, bias), bias,
                            int8_out ? &out : nullptr);
  KernelBuild build;
  AddRuntimeInput(build, 0, input_desc, in.quant);
  AddOutput(build, PlainDesc(req.outputs[0].shape, dst.get_data_type()), int8_out ? out : Quantization{});
  build.flops = MultiplyAddFlops(req.outputs[0].shape, weight.type.shape);
  build.kernel = std::make_unique<DnnlKernel>(pd, std::move(a.args), std::move(a.writes));
  return build;
}

KernelBuild BuildFullyConnected(const KernelRequest& req) {
  const auto p = FullyConnectedParams::Parse(req.attrs);
  const ValueInfo& data = req.inputs[0];
  const ValueInfo& weight = req.inputs[1];
  const ValueInfo* bias = p.no_bias ? nullptr : &req.inputs[2];
  if (req.precision == Precision::kInt8) {
    const Int8Hints hints = Int8Hints::Parse(req.attrs);
    Check(!hints.present || (weight.constant && (!bias || bias->constant)), Status::kUnsupported,
          req.attrs.Where() + "an int8 FullyConnected needs its weight and bias to be parameters");
    if (hints.present) return BuildInt8FullyConnected(req, p, hints);
  }
  const Shape& x = data.type.shape;
  const int64_t k = weight.type.shape[1];
  const int64_t rows = ElementCount(x) / k;
  const auto f32 = memory::data_type::f32;
  // Data and weights in the op's precision; bias, accumulation and the output stay float32.
  const auto type = ComputeType(req.precision);

  // A weight the graph computes arrives as the (num_hidden, K) matrix it is: the data is viewed in 2-D to match.
  const bool view_4d = p.flatten && x.size() == 4 && weight.constant;
  Desc src, wei_plain, wei_any;
  if (view_4d) {
    // The producer's layout when it is in the compute type already, else the one oneDNN prefers.
    src = DescOf(data).get_data_type() == type ? DescOf(data) : Desc(ToDims(x), type, memory::format_tag::any);
    wei_plain = Desc({p.num_hidden, x[1], x[2], x[3]}, f32, memory::format_tag::oihw);
    wei_any = Desc({p.num_hidden, x[1], x[2], x[3]}, type, memory::format_tag::any);
  } else {
    src = Desc({rows, k}, type, memory::format_tag::ab);
    wei_plain = Desc({p.num_hidden, k}, f32, memory::format_tag::ab);
    wei_any = Desc({p.num_hidden, k}, type, memory::format_tag::any);
  }
  const Desc bias_desc = p.no_bias ? Desc() : Desc({p.num_hidden}, f32, memory::format_tag::a);
  const Desc dst({rows, p.num_hidden}, f32, memory::format_tag::ab);
  const dnnl::inner_product_forward::primitive_desc pd(CpuEngine(), dnnl::prop_kind::forward_inference, src,
                                                         wei_any, bias_desc, dst, FullyConnectedAttr(req));
  src = pd.src_desc();
  // The runtime input as the plan sees it: the 4-D layout, or the row-major data behind the 2-D view.
  const Desc input_desc = view_4d ? src : PlainDesc(x, type);
  const Desc wei = pd.weights_desc();

  ConstantCache& constants = CpuConstants(req);
  KernelBuild build;
  std::unordered_map<int, ArgSource> args;
  args[DNNL_ARG_SRC] = {ArgSource::kInput, AddRuntimeInput(build, 0, input_desc), nullptr, src};
  args[DNNL_ARG_DST] = {ArgSource::kOutput, 0, nullptr, dst};
  if (weight.constant) {
    args[DNNL_ARG_WEIGHTS] = {ArgSource::kConstant, 0, constants.Get(weight.constant, wei_plain, wei), wei};
  } else {  // row-major from the plan, packed per run
    const int at = AddRuntimeInput(build, 1, wei_plain);
    args[DNNL_ARG_WEIGHTS] = wei == wei_plain ? ArgSource{ArgSource::kInput, at, nullptr, wei}
                                              : ArgSource{ArgSource::kPackedInput, at, nullptr, wei, 0, wei_plain};
  }
  if (bias && bias->constant)
    args[DNNL_ARG_BIAS] = {ArgSource::kConstant, 0, constants.Get(bias->constant, bias_desc, bias_desc), bias_desc};
  else if (bias)
    args[DNNL_ARG_BIAS] = {ArgSource::kInput, AddRuntimeInput(build, 2, bias_desc), nullptr, bias_desc};

  const Desc output = PlainDesc(req.outputs[0].shape);
  AddOutput(build, output);
  // The residual is copied into the output before the run, unless the plan lets them share a buffer.
  if (p.has_sum) build.accumulate_input = AddRuntimeInput(build, static_cast<int>(req.inputs.size()) - 1, output);
  build.flops = MultiplyAddFlops(req.outputs[0].shape, weight.type.shape);
  build.kernel = std::make_unique<DnnlKernel>(pd, std::move(args));
  return build;
}

const CpuKernelRegistrar kRegister({"FullyConnected"}, BuildFullyConnected, true);

}  // namespace
}  // namespace qv::cpu
