// Scalar arithmetic as oneDNN's eltwise_linear (alpha * x + beta) in any layout; scalar / x, which
// would divide a blocked layout's zero padding, and the comparisons as loops on row-major data.
#include "backends/cpu/eltwise.h"
#include "common/error.h"
#include "ops/scalar_arith.h"

namespace qv::cpu {
namespace {

KernelBuild BuildScalarArith(const KernelRequest& req) {
  const ScalarArith s = ScalarArith::Parse(req.attrs);
  float alpha = 0.f, beta = 0.f;
  if (s.AsLinear(&alpha, &beta)) return BuildEltwise(req, dnnl::algorithm::eltwise_linear, alpha, beta);
  const float c = s.scalar;
  auto loop = [&](auto f) { return BuildElementwiseLoop(req, f, /*keeps_zero=*/false); };
  switch (s.kind) {
    case ScalarArith::kRDiv: return loop([=](float x) { return c / x; });
    case ScalarArith::kGreater: return loop([=](float x) { return x > c ? 1.f : 0.f; });
    case ScalarArith::kGreaterEqual: return loop([=](float x) { return x >= c ? 1.f : 0.f; });
    case ScalarArith::kLesser: return loop([=](float x) { return x < c ? 1.f : 0.f; });
    case ScalarArith::kLesserEqual: return loop([=](float x) { return x <= c ? 1.f : 0.f; });
    case ScalarArith::kEqual: return loop([=](float x) { return x == c ? 1.f : 0.f; });
    case ScalarArith::kNotEqual: return loop([=](float x) { return x != c ? 1.f : 0.f; });
    default: break;  // the linear kinds, above
  }
  throw Error(Status::kInternal, req.attrs.Where() + "unknown scalar operator");
}

const CpuKernelRegistrar kRegister({"_plus_scalar", "_minus_scalar", "_rminus_scalar", "_mul_scalar", "_div_scalar",
                                    "_rdiv_scalar", "_greater_scalar", "_greater_equal_scalar", "_lesser_scalar",
                                    "_lesser_equal_scalar", "_equal_scalar", "_not_equal_scalar"},
                                   BuildScalarArith);

}  // namespace
}  // namespace qv::cpu
