#include "backends/cuda/runtime/cublas_lt.h"

#include <map>
#include <mutex>

#include "common/error.h"

namespace qv::cuda {

void CheckCublas(cublasStatus_t status, const std::string& what) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  const Status code = status == CUBLAS_STATUS_ALLOC_FAILED ? Status::kOutOfMemory : Status::kDevice;
  throw Error(code, what + " failed: cuBLAS " + cublasLtGetStatusName(status) + ": " + cublasLtGetStatusString(status));
}

cublasLtHandle_t LtHandleOf(int device) {
  // Never destroyed: destroying at exit would race the CUDA runtime's own teardown.
  static std::mutex mu;
  static auto* handles = new std::map<int, cublasLtHandle_t>();
  std::lock_guard<std::mutex> lock(mu);
  auto it = handles->find(device);
  if (it != handles->end()) return it->second;
  cublasLtHandle_t handle = nullptr;
  CheckCublas(cublasLtCreate(&handle), "creating a cuBLASLt handle on gpu(" + std::to_string(device) + ")");
  (*handles)[device] = handle;
  return handle;
}

}  // namespace qv::cuda
