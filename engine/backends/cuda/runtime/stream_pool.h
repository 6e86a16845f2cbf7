// Streams of one device, reused: an operation borrows one for its duration instead of creating it.
// Each pooled stream comes with what kernels on it need besides the stream: a cuDNN handle bound to
// it and a workspace at least as large as any plan of this device has reserved, so no kernel
// allocates or rebinds anything on the invocation path.
#pragma once

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "backends/cuda/runtime/block_pool.h"

namespace qv::cuda {

// What a kernel enqueues with: valid for the lease that handed it out.
struct StreamContext {
  cudaStream_t stream = nullptr;
  cudnnHandle_t dnn = nullptr;  // bound to `stream`
  void* workspace = nullptr;    // scratch for one kernel at a time (kernels on a stream run in order)
  size_t workspace_bytes = 0;
};

// Enqueues a copy of `bytes` between two buffers of gpu(`device`) on `on.stream`. Throws
// Error(Status::kDevice).
void EnqueueDeviceCopy(const StreamContext& on, void* dst, const void* src, size_t bytes, int device);

class StreamPool {
 public:
  // Workspaces are taken from `memory`, the same device's pool.
  StreamPool(int device, BlockPool& memory) : device_(device), memory_(memory) {}
  ~StreamPool();
  StreamPool(const StreamPool&) = delete;
  StreamPool& operator=(const StreamPool&) = delete;

  // Every stream lent from now on has a workspace of at least `bytes`. Plans call it when built.
  void ReserveWorkspace(size_t bytes);

  // A stream of this pool's device, returned when the lease ends. Throws Error (Status::kDevice,
  // Status::kOutOfMemory for the workspace).
  class Lease {
   public:
    explicit Lease(StreamPool& pool) : pool_(pool), context_(pool.Borrow()) {}
    ~Lease() { pool_.Return(context_); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    cudaStream_t get() const { return context_.stream; }
    const StreamContext& context() const { return context_; }

   private:
    StreamPool& pool_;
    StreamContext context_;
  };

 private:
  StreamContext Borrow();
  void Return(const StreamContext& context);
  // A new non-blocking stream (it does not wait for the legacy default stream) and its cuDNN handle.
  StreamContext Create();
  void GrowWorkspace(StreamContext& context);

  const int device_;
  BlockPool& memory_;
  std::atomic<size_t> reserved_{0};
  std::mutex mu_;
  std::vector<StreamContext> free_;
};

}  // namespace qv::cuda
