#include "backends/cpu/kernels/eltwise.h"

namespace qv::cpu {

KernelBuild BuildEltwise(const KernelRequest& req, dnnl::algorithm algorithm, float alpha, float beta) {
  const Desc data = req.inputs[0].desc;
  const dnnl::eltwise_forward::primitive_desc pd(CpuEngine(), dnnl::prop_kind::forward_inference, algorithm, data,
                                                   data, alpha, beta, BaseAttr());
  std::unordered_map<int, ArgSource> args;
  args[DNNL_ARG_SRC] = {ArgSource::kInput, 0, nullptr, data};
  args[DNNL_ARG_DST] = {ArgSource::kOutput, 0, nullptr, data};
  KernelBuild build;
  build.runtime_inputs = {0};
  build.input_descs = {data};
  build.output_descs = {data};
  build.kernel = std::make_unique<DnnlKernel>(pd, std::move(args));
  return build;
}

}  // namespace qv::cpu
