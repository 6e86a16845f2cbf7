// Concat on oneDNN; inputs keep their producers' layouts (all read as row-major float32 when their data
// types differ, which oneDNN's concat does not mix), oneDNN picks the output's.
#include <vector>

#include "backends/cpu/dnnl_kernel.h"

namespace qv::cpu {
namespace {

KernelBuild BuildConcat(const KernelRequest& req) {
  const int ndim = static_cast<int>(req.outputs[0].shape.size());
  int dim = static_cast<int>(req.attrs.GetInt("dim", 1));
  if (dim < 0) dim += ndim;
  KernelBuild build;
  std::vector<Desc> srcs;
  std::unordered_map<int, ArgSource> args;
  bool mixed = false;
  for (const ValueInfo& in : req.inputs) mixed = mixed || in.desc.get_data_type() != req.inputs[0].desc.get_data_type();
  for (size_t i = 0; i < req.inputs.size(); ++i) {
    srcs.push_back(mixed ? PlainDesc(req.inputs[i].type.shape) : req.inputs[i].desc);
    build.runtime_inputs.push_back(static_cast<int>(i));
    args[DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i)] = {ArgSource::kInput, static_cast<int>(i), nullptr, srcs.back()};
  }
  const dnnl::primitive_desc_base base = dnnl::concat::primitive_desc(CpuEngine(), dim, srcs, BaseAttr());
  const Desc dst = base.dst_desc(0);
  args[DNNL_ARG_DST] = {ArgSource::kOutput, 0, nullptr, dst};
  build.input_descs = srcs;
  build.output_descs = {dst};
  build.kernel = std::make_unique<DnnlKernel>(base, std::move(args));
  return build;
}

const CpuKernelRegistrar kRegister({"Concat"}, BuildConcat);

}  // namespace
}  // namespace qv::cpu
