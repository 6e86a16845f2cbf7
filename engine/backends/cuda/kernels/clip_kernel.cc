// clip: max(a_min, min(a_max, x)) on the element-wise kernel.
#include "backends/cuda/kernels/unary_kernel.h"
#include "ops/clip.h"

namespace qv::cuda {
namespace {

KernelBuild BuildClip(const KernelRequest& req, DeviceConstantStore&) {
  const ClipBounds b = ParseClip(req.attrs);
  return BuildUnary(req, launch::UnaryFn::kClip, b.lo, b.hi);
}

const CudaKernelRegistrar kRegister({"clip"}, BuildClip);

}  // namespace
}  // namespace qv::cuda
