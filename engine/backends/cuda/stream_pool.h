// Streams of one device, reused: an operation borrows one for its duration instead of creating it.
#pragma once

#include <cuda_runtime_api.h>

#include <mutex>
#include <vector>

namespace qv::cuda {

class StreamPool {
 public:
  explicit StreamPool(int device) : device_(device) {}
  ~StreamPool();
  StreamPool(const StreamPool&) = delete;
  StreamPool& operator=(const StreamPool&) = delete;

  // A stream of this pool's device, returned when the lease ends.
  class Lease {
   public:
    explicit Lease(StreamPool& pool) : pool_(pool), stream_(pool.Borrow()) {}
    ~Lease() { pool_.Return(stream_); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    cudaStream_t get() const { return stream_; }

   private:
    StreamPool& pool_;
    cudaStream_t stream_;
  };

 private:
  // A non-blocking stream (it does not wait for the legacy default stream). Throws Status::kDevice.
  cudaStream_t Borrow();
  void Return(cudaStream_t stream);

  const int device_;
  std::mutex mu_;
  std::vector<cudaStream_t> free_;
};

}  // namespace qv::cuda
