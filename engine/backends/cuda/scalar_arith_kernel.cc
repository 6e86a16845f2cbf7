// Arithmetic and comparisons with a scalar attribute on the element-wise kernel.
#include "backends/cuda/unary_kernel.h"
#include "common/error.h"
#include "ops/scalar_arith.h"

namespace qv::cuda {
namespace {

KernelBuild BuildScalarArith(const KernelRequest& req, DeviceConstantStore&) {
  using launch::UnaryFn;
  const ScalarArith s = ScalarArith::Parse(req.attrs);
  float alpha = 0.f, beta = 0.f;
  if (s.AsLinear(&alpha, &beta)) return BuildUnary(req, UnaryFn::kLinear, alpha, beta);
  const float c = s.scalar;
  switch (s.kind) {
    case ScalarArith::kRDiv: return BuildUnary(req, UnaryFn::kReciprocal, c);
    case ScalarArith::kGreater: return BuildUnary(req, UnaryFn::kGreater, c);
    case ScalarArith::kGreaterEqual: return BuildUnary(req, UnaryFn::kGreaterEqual, c);
    case ScalarArith::kLesser: return BuildUnary(req, UnaryFn::kLesser, c);
    case ScalarArith::kLesserEqual: return BuildUnary(req, UnaryFn::kLesserEqual, c);
    case ScalarArith::kEqual: return BuildUnary(req, UnaryFn::kEqual, c);
    case ScalarArith::kNotEqual: return BuildUnary(req, UnaryFn::kNotEqual, c);
    default: break;  // the linear kinds, above
  }
  throw Error(Status::kInternal, req.attrs.Where() + "unknown scalar operator");
}

const CudaKernelRegistrar kRegister({"_plus_scalar", "_minus_scalar", "_rminus_scalar", "_mul_scalar", "_div_scalar",
                                     "_rdiv_scalar", "_greater_scalar", "_greater_equal_scalar", "_lesser_scalar",
                                     "_lesser_equal_scalar", "_equal_scalar", "_not_equal_scalar"},
                                    BuildScalarArith);

}  // namespace
}  // namespace qv::cuda
