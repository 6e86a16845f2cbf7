// Scalar arithmetic as oneDNN's eltwise_linear (alpha * x + beta) in any layout; the other scalar
// operators (scalar / x, which would divide a blocked layout's zero padding, maximum, power, mod and the
// comparisons) as loops on row-major data.
#include "backends/cpu/kernels/eltwise.h"
#include "ops/scalar_arith.h"

namespace qv::cpu {
namespace {

KernelBuild BuildScalarArith(const KernelRequest& req) {
  const ScalarArith s = ScalarArith::Parse(req.attrs);
  float alpha = 0.f, beta = 0.f;
  if (s.AsLinear(&alpha, &beta)) return BuildEltwise(req, dnnl::algorithm::eltwise_linear, alpha, beta);
  const BinaryMath f = s.f;
  const float c = s.scalar;
  if (s.scalar_first) return BuildElementwiseLoop(req, [=](float x) { return ApplyBinaryMath(f, c, x); }, false);
  return BuildElementwiseLoop(req, [=](float x) { return ApplyBinaryMath(f, x, c); }, false);
}

const CpuKernelRegistrar kRegister({"_plus_scalar", "_minus_scalar", "_rminus_scalar", "_mul_scalar", "_div_scalar",
                                    "_rdiv_scalar", "_maximum_scalar", "_minimum_scalar", "_power_scalar",
                                    "_rpower_scalar", "_mod_scalar", "_rmod_scalar", "_greater_scalar",
                                    "_greater_equal_scalar", "_lesser_scalar", "_lesser_equal_scalar", "_equal_scalar",
                                    "_not_equal_scalar"},
                                   BuildScalarArith);

}  // namespace
}  // namespace qv::cpu
