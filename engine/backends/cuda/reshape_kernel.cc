// Flatten, Reshape and expand_dims keep the row-major bytes: a copy of the input. (Sharing the
// input's buffer instead needs the plan to alias values, which it does not do yet.)
#include "backends/cuda/device_copy_kernel.h"

namespace qv::cuda {
namespace {

KernelBuild BuildRowMajorView(const KernelRequest& req, DeviceConstantStore&) {
  const size_t bytes = static_cast<size_t>(ElementCount(req.outputs[0].shape)) * sizeof(float);
  return RowMajorBuild(req, {0}, MakeDeviceCopy(bytes));
}

const CudaKernelRegistrar kRegister({"Flatten", "Reshape", "expand_dims"}, BuildRowMajorView);

}  // namespace
}  // namespace qv::cuda
