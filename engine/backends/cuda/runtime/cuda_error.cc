#include "backends/cuda/runtime/cuda_error.h"

#include "common/error.h"

namespace qv::cuda {

std::string DescribeCudaError(cudaError_t status) {
  return std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
}

void CheckCuda(cudaError_t status, const std::string& what) {
  if (status == cudaSuccess) return;
  // Clear the thread's sticky "last error" so a later, unrelated check does not report this one.
  cudaGetLastError();
  const Status code = status == cudaErrorMemoryAllocation ? Status::kOutOfMemory : Status::kDevice;
  throw Error(code, what + " failed: " + DescribeCudaError(status));
}

}  // namespace qv::cuda
