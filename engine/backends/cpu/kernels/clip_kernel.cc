// clip on oneDNN's eltwise_clip: max(a_min, min(a_max, x)).
#include "backends/cpu/kernels/eltwise.h"
#include "ops/clip.h"

namespace qv::cpu {
namespace {

KernelBuild BuildClip(const KernelRequest& req) {
  const ClipBounds b = ParseClip(req.attrs);
  return BuildEltwise(req, dnnl::algorithm::eltwise_clip, b.lo, b.hi);
}

const CpuKernelRegistrar kRegister({"clip"}, BuildClip);

}  // namespace
}  // namespace qv::cpu
