// CUDA runtime failures as Quiver errors.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace qv::cuda {

// Throws Error unless `status` is cudaSuccess: Status::kOutOfMemory for a failed allocation,
// Status::kDevice otherwise. The message names `what` and CUDA's name and description of the error.
void CheckCuda(cudaError_t status, const std::string& what);

// "cudaErrorNoDevice: no CUDA-capable device is detected"
std::string DescribeCudaError(cudaError_t status);

}  // namespace qv::cuda
