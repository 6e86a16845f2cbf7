// Stand-alone BatchNorm (one that could not be folded into a convolution), with an optional fused
// ReLU, on oneDNN using the moving statistics.
#include <algorithm>

#include "backends/cpu/runtime/constant_cache.h"
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

  const Desc vec({c}, memory::data_type::f32, memory::format_tag::a);
  std::shared_ptr<void> scale;
  if (p.fix_gamma) {  // MXNet ignores the stored gamma and scales by 1
    scale = AllocateConstant(c * sizeof(float));
    std::fill_n(static_cast<float*>(scale.get()), c, 1.f);
  } else {
    scale = req.constants.Get(req.inputs[1].constant, vec, vec);
  }

  // Normalisation works on any layout; keep the producer's.
  const Desc data = req.inputs[0].desc;
  auto flags = dnnl::normalization_flags::use_global_stats | dnnl::normalization_flags::use_scale |
               dnnl::normalization_flags::use_shift;
  if (!p.post_ops.empty()) flags = flags | dnnl::normalization_flags::fuse_norm_relu;
  const float eps = static_cast<float>(p.eps);
  const dnnl::batch_normalization_forward::primitive_desc pd(CpuEngine(), dnnl::prop_kind::forward_inference, data,
                                                               data, eps, flags, BaseAttr());

  std::unordered_map<int, ArgSource> args;
  args[DNNL_ARG_SRC] = {ArgSource::kInput, 0, nullptr, data};
  args[DNNL_ARG_DST] = {ArgSource::kOutput, 0, nullptr, data};
  args[DNNL_ARG_MEAN] = {ArgSource::kConstant, 0, req.constants.Get(req.inputs[3].constant, vec, vec), vec};
  args[DNNL_ARG_VARIANCE] = {ArgSource::kConstant, 0, req.constants.Get(req.inputs[4].constant, vec, vec), vec};
  args[DNNL_ARG_SCALE] = {ArgSource::kConstant, 0, scale, vec};
  args[DNNL_ARG_SHIFT] = {ArgSource::kConstant, 0, req.constants.Get(req.inputs[2].constant, vec, vec), vec};

  KernelBuild build;
  build.runtime_inputs = {0};
  build.input_descs = {data};
  build.output_descs = {data};
  build.kernel = std::make_unique<DnnlKernel>(pd, std::move(args));
  return build;
}

const CpuKernelRegistrar kRegister({"BatchNorm"}, BuildBatchNorm);

}  // namespace
}  // namespace qv::cpu
