// add_n as oneDNN's sum primitive, every input read in the first one's layout.
#include <vector>

#include "backends/cpu/kernels/dnnl_kernel.h"

namespace qv::cpu {
namespace {

KernelBuild BuildAddN(const KernelRequest& req) {
  const Desc& first = DescOf(req.inputs[0]);
  const Desc layout =
      first.get_data_type() == dnnl::memory::data_type::f32 ? first : PlainDesc(req.inputs[0].type.shape);
  KernelBuild build;
  std::unordered_map<int, ArgSource> args;
  std::vector<Desc> sources;
  for (size_t i = 0; i < req.inputs.size(); ++i) {
    const int index = static_cast<int>(i);
    AddRuntimeInput(build, index, layout);
    sources.push_back(layout);
    args[DNNL_ARG_MULTIPLE_SRC + index] = {ArgSource::kInput, index, nullptr, layout};
  }
  args[DNNL_ARG_DST] = {ArgSource::kOutput, 0, nullptr, layout};
  const std::vector<float> scales(sources.size(), 1.f);
  const dnnl::sum::primitive_desc pd(CpuEngine(), layout, scales, sources, BaseAttr());
  AddOutput(build, layout);
  build.kernel = std::make_unique<DnnlKernel>(pd, std::move(args));
  return build;
}

const CpuKernelRegistrar kRegister({"add_n"}, BuildAddN);

}  // namespace
}  // namespace qv::cpu
