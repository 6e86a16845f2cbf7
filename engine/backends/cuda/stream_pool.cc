#include "backends/cuda/stream_pool.h"

#include <string>

#include "backends/cuda/cuda_devices.h"
#include "backends/cuda/cuda_error.h"

namespace qv::cuda {

StreamPool::~StreamPool() {
  for (cudaStream_t s : free_) cudaStreamDestroy(s);
}

cudaStream_t StreamPool::Borrow() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!free_.empty()) {
      cudaStream_t s = free_.back();
      free_.pop_back();
      return s;
    }
  }
  CurrentDevice current(device_);
  cudaStream_t s = nullptr;
  CheckCuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking),
            "creating a stream on gpu(" + std::to_string(device_) + ")");
  return s;
}

void StreamPool::Return(cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(mu_);
  free_.push_back(stream);
}

}  // namespace qv::cuda
