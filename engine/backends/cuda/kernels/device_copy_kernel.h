// Kernels that copy bytes: a tensor unchanged (reshapes, whose row-major bytes are the same, and the
// plan's conversions between this backend's one layout: a graph output that is an input or a
// parameter), and values uploaded when the plan was built (outputs that depend on shapes alone).
#pragma once

#include <memory>

#include "backends/cuda/kernels/cuda_kernel.h"

namespace qv::cuda {

std::unique_ptr<CudaKernel> MakeDeviceCopy(size_t bytes);
// Copies `bytes` of `values` (device memory it keeps alive) into output 0.
std::unique_ptr<CudaKernel> MakeConstantCopy(std::shared_ptr<const void> values, size_t bytes);

}  // namespace qv::cuda
