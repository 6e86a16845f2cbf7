// exp on the element-wise kernel.
#include "backends/cuda/unary_kernel.h"

namespace qv::cuda {
namespace {

KernelBuild BuildExp(const KernelRequest& req, DeviceConstantStore&) { return BuildUnary(req, launch::UnaryFn::kExp); }

const CudaKernelRegistrar kRegister({"exp"}, BuildExp);

}  // namespace
}  // namespace qv::cuda
