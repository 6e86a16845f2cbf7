// cuDNN failures as Quiver errors.
#pragma once

#include <cudnn.h>

#include <string>

namespace qv::cuda {

// Throws Error unless `status` is CUDNN_STATUS_SUCCESS: Status::kOutOfMemory when cuDNN could not
// allocate, Status::kUnsupported for a configuration it does not run, Status::kDevice otherwise. The
// message names `what`, cuDNN's name of the error and cuDNN's explanation of it, where it gave one.
void CheckCudnn(cudnnStatus_t status, const std::string& what);

// cuDNN's explanation of the last failure on this thread ("" when it has none), which cuDNN then
// forgets. Code that lets a cuDNN failure pass calls it, so that the explanation is not attached to a
// later, unrelated error.
std::string TakeCudnnLastError();

}  // namespace qv::cuda
