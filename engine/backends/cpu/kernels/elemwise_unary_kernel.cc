// The element-wise math functions (ops/unary_math.h) as a loop: the same float functions MXNet's CPU
// kernels call (exp is expf, ...), so the results agree with MXNet's bit for bit.
#include "backends/cpu/kernels/eltwise.h"
#include "ops/op_families.h"
#include "ops/unary_math.h"

namespace qv::cpu {
namespace {

KernelBuild BuildUnaryMath(const KernelRequest& req) {
  const UnaryMath f = UnaryMathOf(req.attrs.op());
  return BuildElementwiseLoop(req, [f](float x) { return ApplyUnaryMath(f, x); }, KeepsZero(f));
}

const CpuKernelRegistrar kRegister(UnaryMathOps(), BuildUnaryMath);

}  // namespace
}  // namespace qv::cpu
