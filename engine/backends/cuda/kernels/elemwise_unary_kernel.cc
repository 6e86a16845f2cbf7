// The element-wise math functions (ops/unary_math.h), computed as the CPU computes them.
#include "backends/cuda/device/device_kernels.h"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "ops/op_families.h"

namespace qv::cuda {
namespace {

class MathKernel : public CudaKernel {
 public:
  MathKernel(UnaryMath f, int64_t n) : f_(f), n_(n) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    launch::Math(f_, static_cast<const float*>(args.inputs[0]), static_cast<float*>(args.outputs[0]), n_, on.stream);
    CheckLaunch("an element-wise math kernel");
  }

 private:
  UnaryMath f_;
  int64_t n_;
};

KernelBuild BuildUnaryMath(const KernelRequest& req, DeviceConstantStore&) {
  return RowMajorBuild(req, {0}, std::make_unique<MathKernel>(UnaryMathOf(req.attrs.op()),
                                                              ElementCount(req.outputs[0].shape)));
}

const CudaKernelRegistrar kRegister(UnaryMathOps(), BuildUnaryMath);

}  // namespace
}  // namespace qv::cuda
