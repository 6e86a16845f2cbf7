// Flatten, Reshape, expand_dims, squeeze and reshape_like keep the row-major bytes: a copy of the input. (Sharing the
// input's buffer instead needs the plan to alias values, which it does not do yet.)
#include "backends/cuda/kernels/device_copy_kernel.h"
#include "backends/cuda/row_major_layout.h"

namespace qv::cuda {
namespace {

KernelBuild BuildRowMajorView(const KernelRequest& req, DeviceConstantStore&) {
  return RowMajorBuild(req, {0}, MakeDeviceCopy(RowMajorBytes(req.outputs[0])));
}

const CudaKernelRegistrar kRegister({"Flatten", "Reshape", "expand_dims", "squeeze", "reshape_like"}, BuildRowMajorView);

}  // namespace
}  // namespace qv::cuda
