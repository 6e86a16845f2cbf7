// Stand-alone BatchNorm (one that could not be folded into a convolution), with an optional fused
// ReLU, on oneDNN using the moving statistics.
#include <vector>

#include "backends/cpu/constant_cache.h"
#include "ops/batch_norm.h"

namespace qv::cpu {
namespace {

using dnnl::memory;

KernelBuild BuildBatchNorm(const KernelRequest& req) {
  const auto p = BatchNormParams::Parse(req.attrs);
  for (int i = 1; i < 5; ++i)
    Check(req.inputs[i].constant != nullptr, Status::kUnsupported,
          req.attrs.Where() + "gamma, beta and the moving statistics must be parameters");
  const Shape& shape = req.inputs[0].type.shape;
  const int64_t c = shape[1];

  // oneDNN wants gamma and beta stacked as one (2, C) tensor.
  auto scale_shift = AllocateConstant(2 * c * sizeof(float));
  float* ss = static_cast<float*>(scale_shift.get());
  const float* gamma = req.inputs[1].constant->plain().data_as<float>();
  const float* beta = req.inputs[2].constant->plain().data_as<float>();
  for (int64_t i = 0; i < c; ++i) {
    ss[i] = p.fix_gamma ? 1.f : gamma[i];
    ss[c + i] = beta[i];
  }

  // Normalisation works on any layout; keep the producer's.
  const Desc data = req.inputs[0].desc;
  auto flags = dnnl::normalization_flags::use_global_stats | dnnl::normalization_flags::use_scale_shift;
  if (!p.post_ops.empty()) flags = flags | dnnl::normalization_flags::fuse_norm_relu;
  const float eps = static_cast<float>(p.eps);
  auto make = [=] {
    dnnl::batch_normalization_forward::desc d(dnnl::prop_kind::forward_inference, data, eps, flags);
    return dnnl::primitive_desc_base(dnnl::batch_normalization_forward::primitive_desc(d, BaseAttr(), CpuEngine()));
  };
  auto base = make();

  const Desc vec({c}, memory::data_type::f32, memory::format_tag::a);
  std::unordered_map<int, ArgSource> args;
  args[DNNL_ARG_SRC] = {ArgSource::kInput, 0, nullptr, data};
  args[DNNL_ARG_DST] = {ArgSource::kOutput, 0, nullptr, data};
  args[DNNL_ARG_MEAN] = {ArgSource::kConstant, 0, req.constants.Get(req.inputs[3].constant, vec, vec), vec};
  args[DNNL_ARG_VARIANCE] = {ArgSource::kConstant, 0, req.constants.Get(req.inputs[4].constant, vec, vec), vec};
  args[DNNL_ARG_SCALE_SHIFT] = {ArgSource::kConstant, 0, scale_shift,
                                Desc({2, c}, memory::data_type::f32, memory::format_tag::ab)};

  KernelBuild build;
  build.runtime_inputs = {0};
  build.input_descs = {data};
  build.output_descs = {data};
  build.kernel = std::make_unique<DnnlKernel>(base, make, std::move(args));
  return build;
}

const CpuKernelRegistrar kRegister({"BatchNorm"}, BuildBatchNorm);

}  // namespace
}  // namespace qv::cpu
