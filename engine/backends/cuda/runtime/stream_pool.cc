#include "backends/cuda/runtime/stream_pool.h"

#include <string>

#include "backends/cuda/runtime/cuda_devices.h"
#include "backends/cuda/runtime/cuda_error.h"
#include "backends/cuda/runtime/cudnn_error.h"

namespace qv::cuda {

void EnqueueDeviceCopy(const StreamContext& on, void* dst, const void* src, size_t bytes, int device) {
  CheckCuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, on.stream),
            "copying a residual into its sum's output on gpu(" + std::to_string(device) + ")");
}

StreamPool::~StreamPool() {
  for (const StreamContext& c : free_) {
    cudnnDestroy(c.dnn);
    cudaStreamDestroy(c.stream);
    if (c.workspace != nullptr) memory_.Release(c.workspace);
  }
}

void StreamPool::ReserveWorkspace(size_t bytes) {
  size_t now = reserved_.load();
  while (now < bytes && !reserved_.compare_exchange_weak(now, bytes)) {
  }
}

StreamContext StreamPool::Borrow() {
  StreamContext context;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!free_.empty()) {
      context = free_.back();
      free_.pop_back();
    }
  }
  if (context.stream == nullptr) context = Create();
  try {
    GrowWorkspace(context);
  } catch (...) {
    Return(context);
    throw;
  }
  return context;
}

void StreamPool::Return(const StreamContext& context) {
  std::lock_guard<std::mutex> lock(mu_);
  free_.push_back(context);
}

StreamContext StreamPool::Create() {
  const std::string where = " on gpu(" + std::to_string(device_) + ")";
  CurrentDevice current(device_);
  StreamContext context;
  CheckCuda(cudaStreamCreateWithFlags(&context.stream, cudaStreamNonBlocking), "creating a stream" + where);
  try {
    CheckCudnn(cudnnCreate(&context.dnn), "creating a cuDNN handle" + where);
    CheckCudnn(cudnnSetStream(context.dnn, context.stream), "binding a cuDNN handle to its stream" + where);
  } catch (...) {
    if (context.dnn != nullptr) cudnnDestroy(context.dnn);
    cudaStreamDestroy(context.stream);
    throw;
  }
  return context;
}

void StreamPool::GrowWorkspace(StreamContext& context) {
  const size_t want = reserved_.load();
  if (context.workspace_bytes >= want) return;
  // The stream may still run work of its last lease that reads the old workspace.
  CheckCuda(cudaStreamSynchronize(context.stream), "growing the workspace on gpu(" + std::to_string(device_) + ")");
  if (context.workspace != nullptr) memory_.Release(context.workspace);
  context.workspace = nullptr;
  context.workspace_bytes = 0;
  context.workspace = memory_.Acquire(want);
  context.workspace_bytes = want;
}

}  // namespace qv::cuda
