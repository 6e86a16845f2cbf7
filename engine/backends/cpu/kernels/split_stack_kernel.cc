// SliceChannel and stack as row copies between the (outer, parts, row) view and the parts.
#include <algorithm>

#include "backends/cpu/kernels/dnnl_kernel.h"
#include "ops/split_stack.h"
#include "backends/cpu/runtime/compute_pool.h"

namespace qv::cpu {
namespace {

// split: output p's row o is the input's row (o, p); stack: the output's row (o, p) is input p's row o.
class RowBlocksKernel : public Kernel {
 public:
  RowBlocksKernel(const RowBlocks& b, bool split) : b_(b), split_(split) {}
  void Execute(const ExecArgs& args) const override {
    ParallelFor(args.threads, b_.outer * b_.parts, [&](int64_t r) {
      const int64_t o = r / b_.parts, p = r % b_.parts;
      const int64_t packed = (o * b_.parts + p) * b_.row, part = o * b_.row;
      const float* src = split_ ? static_cast<const float*>(args.inputs[0]) + packed
                                : static_cast<const float*>(args.inputs[p]) + part;
      float* dst = split_ ? static_cast<float*>(args.outputs[p]) + part : static_cast<float*>(args.outputs[0]) + packed;
      std::copy(src, src + b_.row, dst);
    });
  }

 private:
  RowBlocks b_;
  bool split_;
};

KernelBuild BuildSplit(const KernelRequest& req) {
  const Shape& x = req.inputs[0].type.shape;
  KernelBuild build;
  AddRuntimeInput(build, 0, PlainDesc(x));
  for (const TensorType& out : req.outputs) AddOutput(build, PlainDesc(out.shape));
  build.kernel = std::make_unique<RowBlocksKernel>(ResolveSplit(req.attrs, x), true);
  return build;
}

KernelBuild BuildStack(const KernelRequest& req) {
  KernelBuild build = PlainIO(req);
  build.kernel = std::make_unique<RowBlocksKernel>(ResolveStack(req.attrs, req.inputs[0].type.shape), false);
  return build;
}

const CpuKernelRegistrar kRegisterSplit({"SliceChannel"}, BuildSplit);
const CpuKernelRegistrar kRegisterStack({"stack"}, BuildStack);

}  // namespace
}  // namespace qv::cpu
