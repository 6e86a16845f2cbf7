#include "backends/cuda/cudnn_error.h"

#include "common/error.h"

namespace qv::cuda {

void CheckCudnn(cudnnStatus_t status, const std::string& what) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  Status code = Status::kDevice;
  if (status == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED ||
      status == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED) {
    code = Status::kOutOfMemory;
  } else if (status / 1000 == CUDNN_STATUS_NOT_SUPPORTED / 1000) {  // cuDNN 9 numbers error kinds by thousands
    code = Status::kUnsupported;
  }
  throw Error(code, what + " failed: cuDNN " + cudnnGetErrorString(status));
}

}  // namespace qv::cuda
