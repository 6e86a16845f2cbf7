// Flatten, Reshape and expand_dims keep the row-major bytes: a copy of the input. (Sharing the
// input's buffer instead needs the plan to alias values, which it does not do yet.)
#include "backends/cuda/device_copy_kernel.h"
#include "backends/cuda/row_major_layout.h"

namespace qv::cuda {
namespace {

KernelBuild BuildRowMajorView(const KernelRequest& req, DeviceConstantStore&) {
  return RowMajorBuild(req, {0}, MakeDeviceCopy(RowMajorBytes(req.outputs[0])));
}

const CudaKernelRegistrar kRegister({"Flatten", "Reshape", "expand_dims"}, BuildRowMajorView);

}  // namespace
}  // namespace qv::cuda
