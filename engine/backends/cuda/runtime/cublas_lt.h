// cuBLASLt for the CUDA backend: one library handle per device, made on first use and kept for the
// process (matmuls take their stream per call, so invocations on different streams share it).
#pragma once

#include <cublasLt.h>

#include <string>

namespace qv::cuda {

// The handle of `device`; the device must be current on the calling thread the first time.
cublasLtHandle_t LtHandleOf(int device);

// Throws Error(Status::kDevice) naming `what` and cuBLAS's description unless `status` is success
// (Status::kOutOfMemory for CUBLAS_STATUS_ALLOC_FAILED).
void CheckCublas(cublasStatus_t status, const std::string& what);

}  // namespace qv::cuda
