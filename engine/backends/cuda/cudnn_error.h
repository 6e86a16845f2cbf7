// cuDNN failures as Quiver errors.
#pragma once

#include <cudnn.h>

#include <string>

namespace qv::cuda {

// Throws Error unless `status` is CUDNN_STATUS_SUCCESS: Status::kOutOfMemory when cuDNN could not
// allocate, Status::kUnsupported for a configuration it does not run, Status::kDevice otherwise. The
// message names `what` and cuDNN's name of the error.
void CheckCudnn(cudnnStatus_t status, const std::string& what);

}  // namespace qv::cuda
