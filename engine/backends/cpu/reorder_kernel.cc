#include "backends/cpu/dnnl_kernel.h"

namespace qv::cpu {

std::unique_ptr<Kernel> MakeReorderKernel(const Desc& from, const Desc& to) {
  const dnnl::reorder::primitive_desc pd(CpuEngine(), from, CpuEngine(), to, BaseAttr());
  std::unordered_map<int, ArgSource> args;
  args[DNNL_ARG_FROM] = {ArgSource::kInput, 0, nullptr, from};
  args[DNNL_ARG_TO] = {ArgSource::kOutput, 0, nullptr, to};
  return std::make_unique<DnnlKernel>(pd, std::move(args));
}

namespace {

// Flatten, Reshape and expand_dims keep the row-major order of the data: one reorder reads any
// layout and writes the row-major result, which is the output's bytes.
KernelBuild BuildRowMajorView(const KernelRequest& req) {
  const Desc from = req.inputs[0].desc;
  const Desc to = PlainDesc(req.inputs[0].type.shape);
  KernelBuild build;
  build.runtime_inputs = {0};
  build.input_descs = {from};
  build.output_descs = {PlainDesc(req.outputs[0].shape)};
  build.kernel = MakeReorderKernel(from, to);
  return build;
}

const CpuKernelRegistrar kRegister({"Flatten", "Reshape", "expand_dims"}, BuildRowMajorView);

}  // namespace
}  // namespace qv::cpu
