// FullyConnected on oneDNN's inner product. A flattening FC over a 4-D input reads the producer's
// layout directly (the weights take the matching 4-D view); other cases see row-major 2-D views.
#include "backends/cpu/constant_cache.h"
#include "backends/cpu/cpu_precision.h"
#include "ops/fully_connected.h"

namespace qv::cpu {
namespace {

using dnnl::memory;

KernelBuild BuildFullyConnected(const KernelRequest& req) {
  const auto p = FullyConnectedParams::Parse(req.attrs);
  const ValueInfo& data = req.inputs[0];
  const ValueInfo& weight = req.inputs[1];
  Check(weight.constant != nullptr, Status::kUnsupported, req.attrs.Where() + "weight must be a parameter");
  Check(p.no_bias || req.inputs[2].constant, Status::kUnsupported, req.attrs.Where() + "bias must be a parameter");
  const Shape& x = data.type.shape;
  const int64_t k = weight.type.shape[1];
  const int64_t rows = ElementCount(x) / k;
  const auto f32 = memory::data_type::f32;
  // Data and weights in the op's precision; bias, accumulation and the output stay float32.
  const auto type = ComputeType(req.precision);

  const bool view_4d = p.flatten && x.size() == 4;
  Desc src, wei_plain, wei_any;
  if (view_4d) {
    // The producer's layout when it is in the compute type already, else the one oneDNN prefers.
    src = data.desc.get_data_type() == type ? data.desc : Desc(ToDims(x), type, memory::format_tag::any);
    wei_plain = Desc({p.num_hidden, x[1], x[2], x[3]}, f32, memory::format_tag::oihw);
    wei_any = Desc({p.num_hidden, x[1], x[2], x[3]}, type, memory::format_tag::any);
  } else {
    src = Desc({rows, k}, type, memory::format_tag::ab);
    wei_plain = Desc({p.num_hidden, k}, f32, memory::format_tag::ab);
    wei_any = Desc({p.num_hidden, k}, type, memory::format_tag::any);
  }
  const Desc bias = p.no_bias ? Desc() : Desc({p.num_hidden}, f32, memory::format_tag::a);
  const Desc dst({rows, p.num_hidden}, f32, memory::format_tag::ab);
  const dnnl::inner_product_forward::primitive_desc pd(CpuEngine(), dnnl::prop_kind::forward_inference, src,
                                                         wei_any, bias, dst, BaseAttr());
  src = pd.src_desc();
  // The runtime input as the plan sees it: the 4-D layout, or the row-major data behind the 2-D view.
  const Desc input_desc = view_4d ? src : PlainDesc(x, type);
  const Desc wei = pd.weights_desc();

  std::unordered_map<int, ArgSource> args;
  args[DNNL_ARG_SRC] = {ArgSource::kInput, 0, nullptr, src};
  args[DNNL_ARG_DST] = {ArgSource::kOutput, 0, nullptr, dst};
  args[DNNL_ARG_WEIGHTS] = {ArgSource::kConstant, 0, req.constants.Get(weight.constant, wei_plain, wei), wei};
  if (!p.no_bias) args[DNNL_ARG_BIAS] = {ArgSource::kConstant, 0, req.constants.Get(req.inputs[2].constant, bias, bias), bias};

  KernelBuild build;
  build.runtime_inputs = {0};
  build.input_descs = {input_desc};
  build.output_descs = {PlainDesc(req.outputs[0].shape)};
  build.flops = MultiplyAddFlops(req.outputs[0].shape, weight.type.shape);
  build.kernel = std::make_unique<DnnlKernel>(pd, std::move(args));
  return build;
}

const CpuKernelRegistrar kRegister({"FullyConnected"}, BuildFullyConnected);

}  // namespace
}  // namespace qv::cpu
