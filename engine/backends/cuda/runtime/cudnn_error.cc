#include "backends/cuda/runtime/cudnn_error.h"

#include <cctype>

#include "common/error.h"

namespace qv::cuda {

std::string TakeCudnnLastError() {
  char text[4096] = {};  // cuDNN cuts a longer explanation short
  cudnnGetLastErrorString(text, sizeof text);
  std::string message(text);
  while (!message.empty() && std::isspace(static_cast<unsigned char>(message.back()))) message.pop_back();
  return message;
}

void CheckCudnn(cudnnStatus_t status, const std::string& what) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  Status code = Status::kDevice;
  if (status == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED ||
      status == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED) {
    code = Status::kOutOfMemory;
  } else if (status / 1000 == CUDNN_STATUS_NOT_SUPPORTED / 1000) {  // cuDNN 9 numbers error kinds by thousands
    code = Status::kUnsupported;
  }
  std::string message = what + " failed: cuDNN " + cudnnGetErrorString(status);
  const std::string explanation = TakeCudnnLastError();
  if (!explanation.empty()) message += ": " + explanation;
  throw Error(code, message);
}

}  // namespace qv::cuda
