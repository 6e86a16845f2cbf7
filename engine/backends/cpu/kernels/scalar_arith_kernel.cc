// Scalar arithmetic as oneDNN's eltwise_linear (alpha * x + beta) in any layout; the other scalar
// operators (scalar / x, which would divide a blocked layout's zero padding, maximum, power, mod and the
// comparisons) as loops on row-major data.
#include "backends/cpu/kernels/eltwise.h"
#include "ops/op_families.h"
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

const CpuKernelRegistrar kRegister(ScalarArithOps(), BuildScalarArith);

}  // namespace
}  // namespace qv::cpu
