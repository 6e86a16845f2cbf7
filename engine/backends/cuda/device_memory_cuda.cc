// Device memory in the CUDA build: per-device caching pools of device memory and streams, and one
// pool of pinned host memory that stages every copy between host and device.
#include <cuda_runtime_api.h>

#include <cstring>
#include <map>
#include <memory>
#include <mutex>

#include "backends/cuda/block_pool.h"
#include "backends/cuda/cuda_devices.h"
#include "backends/cuda/cuda_error.h"
#include "backends/cuda/stream_pool.h"
#include "common/error.h"
#include "tensor/device_memory.h"

namespace qv::device_memory {
namespace {

using cuda::BlockPool;
using cuda::CheckCuda;

// Returns null instead of failing: BlockPool trims its cache and retries, then reports the error.
void* OrNull(cudaError_t status, void* block) {
  if (status == cudaSuccess) return block;
  cudaGetLastError();
  return nullptr;
}

struct DeviceResources {
  explicit DeviceResources(int id)
      : memory("gpu(" + std::to_string(id) + ") memory",
               {[id](size_t bytes) {
                  cuda::CurrentDevice current(id);
                  void* p = nullptr;
                  return OrNull(cudaMalloc(&p, bytes), p);
                },
                [id](void* p) {
                  cuda::CurrentDevice current(id);
                  cudaFree(p);
                }}),
        streams(id) {}
  BlockPool memory;
  cuda::StreamPool streams;
};

// Process-lifetime singletons: freeing CUDA memory from static destructors would race the CUDA
// runtime's own teardown at exit.
DeviceResources& ResourcesOf(int id) {
  static std::mutex mu;
  static auto* devices = new std::map<int, std::unique_ptr<DeviceResources>>();
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = (*devices)[id];
  if (!slot) slot = std::make_unique<DeviceResources>(id);
  return *slot;
}

BlockPool& PinnedPool() {
  static auto* pool = new BlockPool("pinned host memory", {[](size_t bytes) {
                                                            void* p = nullptr;
                                                            return OrNull(cudaHostAlloc(&p, bytes, cudaHostAllocDefault), p);
                                                          },
                                                          [](void* p) { cudaFreeHost(p); }});
  return *pool;
}

// A block borrowed from a pool for a scope.
class PooledBlock {
 public:
  PooledBlock(BlockPool& pool, size_t bytes) : pool_(pool), data_(pool.Acquire(bytes)) {}
  ~PooledBlock() { pool_.Release(data_); }
  PooledBlock(const PooledBlock&) = delete;
  PooledBlock& operator=(const PooledBlock&) = delete;
  void* data() const { return data_; }

 private:
  BlockPool& pool_;
  void* data_;
};

struct DeviceBlock {
  BlockPool* pool;
  void* data;
};

void ReleaseDeviceBlock(void* ctx) {
  auto* block = static_cast<DeviceBlock*>(ctx);
  block->pool->Release(block->data);
  delete block;
}

void Copy(const Device& device, void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, const char* what) {
  cuda::CurrentDevice current(device.id);
  cuda::StreamPool::Lease stream(ResourcesOf(device.id).streams);
  CheckCuda(cudaMemcpyAsync(dst, src, bytes, kind, stream.get()), std::string(what) + " on " + device.ToString());
  CheckCuda(cudaStreamSynchronize(stream.get()), std::string(what) + " on " + device.ToString());
}

}  // namespace

void Require(const Device& device) {
  Check(device.type == QV_GPU, QV_ERR_DEVICE, "device " + device.ToString() + " is not a GPU");
  cuda::RequireDevice(device.id);
}

std::shared_ptr<Storage> Allocate(const Device& device, size_t bytes) {
  Require(device);
  if (bytes == 0) return Storage::Wrap(nullptr, 0, nullptr, nullptr);
  DeviceResources& resources = ResourcesOf(device.id);
  auto block = std::make_unique<DeviceBlock>(DeviceBlock{&resources.memory, resources.memory.Acquire(bytes)});
  try {
    cuda::CurrentDevice current(device.id);
    cuda::StreamPool::Lease stream(resources.streams);
    CheckCuda(cudaMemsetAsync(block->data, 0, bytes, stream.get()), "zero-filling memory on " + device.ToString());
    CheckCuda(cudaStreamSynchronize(stream.get()), "zero-filling memory on " + device.ToString());
  } catch (...) {
    resources.memory.Release(block->data);
    throw;
  }
  void* data = block->data;
  return Storage::Wrap(data, bytes, ReleaseDeviceBlock, block.release());
}

void CopyFromHost(const Device& device, void* device_dst, const void* host_src, size_t bytes) {
  PooledBlock staging(PinnedPool(), bytes);
  std::memcpy(staging.data(), host_src, bytes);
  Copy(device, device_dst, staging.data(), bytes, cudaMemcpyHostToDevice, "copying to the device");
}

void CopyToHost(const Device& device, void* host_dst, const void* device_src, size_t bytes) {
  PooledBlock staging(PinnedPool(), bytes);
  Copy(device, staging.data(), device_src, bytes, cudaMemcpyDeviceToHost, "copying from the device");
  std::memcpy(host_dst, staging.data(), bytes);
}

}  // namespace qv::device_memory
