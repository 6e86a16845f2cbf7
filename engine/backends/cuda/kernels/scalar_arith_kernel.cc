// Arithmetic and comparisons with a scalar attribute: the linear ones (x + s, s - x, x * s, x / s, ...)
// on the element-wise kernel, the others as f(x, s) or f(s, x) (ops/binary_math.h).
#include "backends/cuda/kernels/unary_kernel.h"
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

const CudaKernelRegistrar kRegister({"_plus_scalar", "_minus_scalar", "_rminus_scalar", "_mul_scalar", "_div_scalar",
                                     "_rdiv_scalar", "_maximum_scalar", "_minimum_scalar", "_power_scalar",
                                     "_rpower_scalar", "_mod_scalar", "_rmod_scalar", "_greater_scalar",
                                     "_greater_equal_scalar", "_lesser_scalar", "_lesser_equal_scalar",
                                     "_equal_scalar", "_not_equal_scalar"},
                                    BuildScalarArith);

}  // namespace
}  // namespace qv::cuda
