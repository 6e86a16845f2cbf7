// CUDA runtime failures as Quiver errors.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace qv::cuda {

// Throws Error unless `status` is cudaSuccess: QV_ERR_OUT_OF_MEMORY for a failed allocation,
// QV_ERR_DEVICE otherwise. The message names `what` and CUDA's name and description of the error.
void CheckCuda(cudaError_t status, const std::string& what);

// "cudaErrorNoDevice: no CUDA-capable device is detected"
std::string DescribeCudaError(cudaError_t status);

}  // namespace qv::cuda
