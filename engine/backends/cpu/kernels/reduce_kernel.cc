// sum, mean, max, min and prod as oneDNN's reduction: row-major source, and a destination of the
// source's rank with 1s on the reduced axes, whose bytes are the output's whatever its shape.
#include "backends/cpu/kernels/dnnl_kernel.h"
#include "ops/reduce.h"

namespace qv::cpu {
namespace {

dnnl::algorithm ReductionAlgorithm(ReduceKind kind) {
  switch (kind) {
    case ReduceKind::kSum: return dnnl::algorithm::reduction_sum;
    case ReduceKind::kMean: return dnnl::algorithm::reduction_mean;
    case ReduceKind::kMax: return dnnl::algorithm::reduction_max;
    case ReduceKind::kMin: return dnnl::algorithm::reduction_min;
    case ReduceKind::kProd: return dnnl::algorithm::reduction_mul;
  }
  return dnnl::algorithm::reduction_sum;
}

KernelBuild BuildReduce(const KernelRequest& req) {
  const Shape& x = req.inputs[0].type.shape;
  const Desc src = PlainDesc(x);
  const Shape kept = ReducedKeepingDims(req.attrs, x);
  const Desc dst = PlainDesc(kept);
  KernelBuild build;
  build.runtime_inputs = {0};
  build.input_descs = {src};
  build.output_descs = {PlainDesc(req.outputs[0].shape)};
  if (kept == x) {  // only size-1 axes reduced: every reduction is the identity, which oneDNN refuses
    build.kernel = MakeReorderKernel(src, src);
    return build;
  }
  const dnnl::reduction::primitive_desc pd(CpuEngine(), ReductionAlgorithm(ReduceKindOf(req.attrs.op())), src, dst,
                                           0.f, 0.f, BaseAttr());
  std::unordered_map<int, ArgSource> args;
  args[DNNL_ARG_SRC] = {ArgSource::kInput, 0, nullptr, src};
  args[DNNL_ARG_DST] = {ArgSource::kOutput, 0, nullptr, dst};
  build.kernel = std::make_unique<DnnlKernel>(pd, std::move(args));
  return build;
}

const CpuKernelRegistrar kRegister({"sum", "mean", "max", "min", "prod"}, BuildReduce);

}  // namespace
}  // namespace qv::cpu
