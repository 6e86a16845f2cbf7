// Arithmetic and comparisons with a scalar attribute: the linear ones (x + s, s - x, x * s, x / s, ...)
// on the element-wise kernel, the others as f(x, s) or f(s, x) (ops/binary_math.h).
#include "backends/cuda/kernels/unary_kernel.h"
#include "ops/op_families.h"
#include "ops/scalar_arith.h"

namespace qv::cuda {
namespace {

class ScalarBinaryKernel : public CudaKernel {
 public:
  ScalarBinaryKernel(const ScalarArith& s, int64_t n) : s_(s), n_(n) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    launch::ScalarBinary(s_.f, s_.scalar, s_.scalar_first, static_cast<const float*>(args.inputs[0]),
                         static_cast<float*>(args.outputs[0]), n_, on.stream);
    CheckLaunch("a scalar element-wise kernel");
  }

 private:
  ScalarArith s_;
  int64_t n_;
};

KernelBuild BuildScalarArith(const KernelRequest& req, DeviceConstantStore&) {
  const ScalarArith s = ScalarArith::Parse(req.attrs);
  float alpha = 0.f, beta = 0.f;
  if (s.AsLinear(&alpha, &beta)) return BuildUnary(req, launch::UnaryFn::kLinear, alpha, beta);
  return RowMajorBuild(req, {0}, std::make_unique<ScalarBinaryKernel>(s, ElementCount(req.outputs[0].shape)));
}

const CudaKernelRegistrar kRegister(ScalarArithOps(), BuildScalarArith);

}  // namespace
}  // namespace qv::cuda
