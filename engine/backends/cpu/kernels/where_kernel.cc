// where as a loop over row-major data.
#include "backends/cpu/kernels/dnnl_kernel.h"
#include "backends/cpu/runtime/compute_pool.h"

namespace qv::cpu {
namespace {

class WhereKernel : public Kernel {
 public:
  // `row` elements of x share one condition value (1 when the condition has x's shape).
  WhereKernel(int64_t n, int64_t row) : n_(n), row_(row) {}
  void Execute(const ExecArgs& args) const override {
    const float* cond = static_cast<const float*>(args.inputs[0]);
    const float* x = static_cast<const float*>(args.inputs[1]);
    const float* y = static_cast<const float*>(args.inputs[2]);
    float* out = static_cast<float*>(args.outputs[0]);
    ParallelFor(args.threads, n_, [&](int64_t i) { out[i] = cond[i / row_] != 0.f ? x[i] : y[i]; });
  }

 private:
  int64_t n_, row_;
};

KernelBuild BuildWhere(const KernelRequest& req) {
  const Shape& x = req.inputs[1].type.shape;
  const int64_t n = ElementCount(x);
  KernelBuild build = PlainIO(req);
  build.kernel = std::make_unique<WhereKernel>(n, n / ElementCount(req.inputs[0].type.shape));
  return build;
}

const CpuKernelRegistrar kRegister({"where"}, BuildWhere);

}  // namespace
}  // namespace qv::cpu
