// L2Normalization as a loop over (outer, axis, inner) lanes of row-major data; in SSD it runs once,
// on one feature map, so a plain loop is enough.
#include <cmath>

#include "backends/cpu/kernels/dnnl_kernel.h"
#include "ops/l2_normalization.h"
#include "backends/cpu/runtime/compute_pool.h"

namespace qv::cpu {
namespace {

class L2NormKernel : public Kernel {
 public:
  explicit L2NormKernel(const L2NormGeometry& g) : g_(g) {}

  void Execute(const ExecArgs& args) const override {
    const float* x = static_cast<const float*>(args.inputs[0]);
    float* y = static_cast<float*>(args.outputs[0]);
    const int64_t lanes = g_.outer * g_.inner;
    ParallelFor(args.threads, lanes, [&](int64_t lane) {
      const int64_t base = (lane / g_.inner) * g_.axis * g_.inner + lane % g_.inner;
      double sum = 0.0;
      for (int64_t a = 0; a < g_.axis; ++a) {
        const double v = x[base + a * g_.inner];
        sum += v * v;
      }
      const float inv = static_cast<float>(1.0 / std::sqrt(sum + g_.eps));
      for (int64_t a = 0; a < g_.axis; ++a) y[base + a * g_.inner] = x[base + a * g_.inner] * inv;
    });
  }

 private:
  L2NormGeometry g_;
};

KernelBuild BuildL2Norm(const KernelRequest& req) {
  const Shape& x = req.inputs[0].type.shape;
  KernelBuild build = PlainIO(req);
  build.kernel = std::make_unique<L2NormKernel>(ResolveL2Norm(req.attrs, x));
  return build;
}

const CpuKernelRegistrar kRegister({"L2Normalization"}, BuildL2Norm);

}  // namespace
}  // namespace qv::cpu
