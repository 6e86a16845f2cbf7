// Scalar arithmetic as oneDNN's eltwise_linear (alpha * x + beta) in any layout; scalar / x, which
// would divide a blocked layout's zero padding, as a loop on row-major data.
#include "backends/cpu/eltwise.h"
#include "ops/scalar_arith.h"

namespace qv::cpu {
namespace {

KernelBuild BuildScalarArith(const KernelRequest& req) {
  const ScalarArith s = ScalarArith::Parse(req.attrs);
  const auto linear = dnnl::algorithm::eltwise_linear;
  switch (s.kind) {
    case ScalarArith::kPlus: return BuildEltwise(req, linear, 1.f, s.scalar);
    case ScalarArith::kMinus: return BuildEltwise(req, linear, 1.f, -s.scalar);
    case ScalarArith::kRMinus: return BuildEltwise(req, linear, -1.f, s.scalar);
    case ScalarArith::kMul: return BuildEltwise(req, linear, s.scalar, 0.f);
    case ScalarArith::kDiv: return BuildEltwise(req, linear, 1.f / s.scalar, 0.f);
    case ScalarArith::kRDiv: break;
  }
  const float scalar = s.scalar;
  return BuildElementwiseLoop(req, [=](float x) { return scalar / x; }, /*keeps_zero=*/false);
}

const CpuKernelRegistrar kRegister({"_plus_scalar", "_PlusScalar", "_minus_scalar", "_MinusScalar", "_rminus_scalar",
                                    "_RMinusScalar", "_mul_scalar", "_MulScalar", "_div_scalar", "_DivScalar",
                                    "_rdiv_scalar", "_RDivScalar"},
                                   BuildScalarArith);

}  // namespace
}  // namespace qv::cpu
