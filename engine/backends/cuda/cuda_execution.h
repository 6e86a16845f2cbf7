// One invocation's run of a plan on a GPU: a stream borrowed from the device's pool for the whole
// invocation, every step enqueued on it in order, and Finish waiting on an event recorded after the
// last step. Completion is synchronous for now: the invocation's engine thread waits in Finish.
// (Reporting the event through the engine's PushAsync, so no thread waits, is a later step.)
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "backends/backend.h"
#include "backends/cuda/stream_pool.h"

namespace qv::cuda {

class CudaExecution : public Execution {
 public:
  explicit CudaExecution(const Device& device);
  // Waits for whatever was enqueued before handing the stream back: the plan frees the workspace
  // the steps use right after, also when a step failed.
  ~CudaExecution() override;

  void Run(const Kernel& kernel, ExecArgs& args, int parallelism, const std::string& node) override;
  void Finish() override;

 private:
  const Device device_;
  StreamPool::Lease stream_;
  cudaEvent_t done_ = nullptr;
};

}  // namespace qv::cuda
