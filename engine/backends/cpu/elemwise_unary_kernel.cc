// exp as a loop over row-major data: std::exp on floats is the expf that MXNet's CPU kernel calls
// (mshadow_op::exp), so the results agree bit for bit.
#include <cmath>

#include "backends/cpu/eltwise.h"

namespace qv::cpu {
namespace {

KernelBuild BuildExp(const KernelRequest& req) {
  return BuildElementwiseLoop(req, [](float x) { return std::exp(x); }, /*keeps_zero=*/false);
}

const CpuKernelRegistrar kRegister({"exp"}, BuildExp);

}  // namespace
}  // namespace qv::cpu
