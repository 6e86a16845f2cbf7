// A kernel copying a tensor's bytes unchanged: reshapes (row-major bytes are the same) and the plan's
// conversions between this backend's one layout (a graph output that is an input or a parameter).
#pragma once

#include <memory>

#include "backends/cuda/cuda_kernel.h"

namespace qv::cuda {

std::unique_ptr<CudaKernel> MakeDeviceCopy(size_t bytes);

}  // namespace qv::cuda
