#include "backends/cpu/kernels/eltwise.h"

namespace qv::cpu {

KernelBuild BuildEltwise(const KernelRequest& req, dnnl::algorithm algorithm, float alpha, float beta) {
  const Desc data = DescOf(req.inputs[0]);
  const dnnl::eltwise_forward::primitive_desc pd(CpuEngine(), dnnl::prop_kind::forward_inference, algorithm, data,
                                                   data, alpha, beta, BaseAttr());
  std::unordered_map<int, ArgSource> args;
  args[DNNL_ARG_SRC] = {ArgSource::kInput, 0, nullptr, data};
  args[DNNL_ARG_DST] = {ArgSource::kOutput, 0, nullptr, data};
  KernelBuild build;
  AddRuntimeInput(build, 0, data);
  AddOutput(build, data);
  build.kernel = std::make_unique<DnnlKernel>(pd, std::move(args));
  return build;
}

}  // namespace qv::cpu
