// GPU memory behind the DeviceMemory interface: per-device caching pools of device memory and streams,
// and one pool of pinned host memory that stages every copy between host and device.
#include <cuda_runtime_api.h>

#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "backends/cuda/runtime/cuda_devices.h"
#include "backends/cuda/runtime/cuda_error.h"
#include "backends/cuda/runtime/cuda_memory.h"
#include "backends/cuda/runtime/device_resources.h"
#include "common/error.h"

namespace qv::cuda {
namespace {

// Runs an allocation call and returns its block, or null instead of failing: BlockPool trims its cache
// and retries, then reports the error. The call writes the block through its argument, so it must run
// before the block is read (hence a callable, not two arguments whose order C++ leaves unspecified).
template <typename Allocate>
void* BlockOrNull(Allocate allocate) {
  void* block = nullptr;
  if (allocate(&block) == cudaSuccess) return block;
  cudaGetLastError();
  return nullptr;
}

struct DeviceBlock {
  BlockPool* pool;
  void* data;
};

void ReleaseDeviceBlock(void* ctx) {
  auto* block = static_cast<DeviceBlock*>(ctx);
  block->pool->Release(block->data);
  delete block;
}

void CopyOnStream(const Device& device, void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                  const char* what) {
  CurrentDevice current(device.id);
  StreamPool::Lease stream(ResourcesOf(device.id).streams);
  CheckCuda(cudaMemcpyAsync(dst, src, bytes, kind, stream.get()), std::string(what) + " on " + device.ToString());
  CheckCuda(cudaStreamSynchronize(stream.get()), std::string(what) + " on " + device.ToString());
}

}  // namespace

DeviceResources::DeviceResources(int id)
    : memory("gpu(" + std::to_string(id) + ") memory",
             {[id](size_t bytes) {
                CurrentDevice current(id);
                return BlockOrNull([bytes](void** p) { return cudaMalloc(p, bytes); });
              },
              [id](void* p) {
                CurrentDevice current(id);
                cudaFree(p);
              }}),
      streams(id, memory) {}

BlockPool& PinnedHostMemory() {
  static auto* pool = new BlockPool("pinned host memory", {[](size_t bytes) {
                                                            return BlockOrNull([bytes](void** p) {
                                                              return cudaHostAlloc(p, bytes, cudaHostAllocDefault);
                                                            });
                                                          },
                                                          [](void* p) { cudaFreeHost(p); }});
  return *pool;
}

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

void CudaMemory::Require(const Device& device) const {
  Check(device.type == DeviceType::kGpu, Status::kDevice, "device " + device.ToString() + " is not a GPU");
  RequireDevice(device.id);
}

std::shared_ptr<Storage> CudaMemory::Allocate(const Device& device, size_t bytes) const {
  std::shared_ptr<Storage> storage = AllocateUninitialized(device, bytes);
  if (bytes > 0) SetZero(device, storage->data(), bytes);  // on failure, `storage` hands the block back
  return storage;
}

std::shared_ptr<Storage> CudaMemory::AllocateUninitialized(const Device& device, size_t bytes) const {
  Require(device);
  if (bytes == 0) return Storage::Wrap(nullptr, 0, nullptr, nullptr);
  DeviceResources& resources = ResourcesOf(device.id);
  auto block = std::make_unique<DeviceBlock>(DeviceBlock{&resources.memory, resources.memory.Acquire(bytes)});
  void* data = block->data;
  return Storage::Wrap(data, bytes, ReleaseDeviceBlock, block.release());
}

void CudaMemory::CopyFromHost(const Device& device, void* dst, const void* host_src, size_t bytes) const {
  PooledBlock staging(PinnedHostMemory(), bytes);
  std::memcpy(staging.data(), host_src, bytes);
  CopyOnStream(device, dst, staging.data(), bytes, cudaMemcpyHostToDevice, "copying to the device");
}

void CudaMemory::CopyToHost(const Device& device, void* host_dst, const void* src, size_t bytes) const {
  PooledBlock staging(PinnedHostMemory(), bytes);
  CopyOnStream(device, staging.data(), src, bytes, cudaMemcpyDeviceToHost, "copying from the device");
  std::memcpy(host_dst, staging.data(), bytes);
}

void CudaMemory::Copy(const Device& device, void* dst, const void* src, size_t bytes) const {
  CopyOnStream(device, dst, src, bytes, cudaMemcpyDeviceToDevice, "copying on the device");
}

void CudaMemory::SetZero(const Device& device, void* dst, size_t bytes) const {
  CurrentDevice current(device.id);
  StreamPool::Lease stream(ResourcesOf(device.id).streams);
  CheckCuda(cudaMemsetAsync(dst, 0, bytes, stream.get()), "zero-filling memory on " + device.ToString());
  CheckCuda(cudaStreamSynchronize(stream.get()), "zero-filling memory on " + device.ToString());
}

std::function<void()> CudaMemory::AfterStream(const Device& device, void* stream) const {
  if (stream == nullptr) return {};
  Require(device);
  CurrentDevice current(device.id);
  cudaEvent_t event = nullptr;
  CheckCuda(cudaEventCreateWithFlags(&event, cudaEventDisableTiming | cudaEventBlockingSync),
            "creating an event on " + device.ToString());
  const std::shared_ptr<CUevent_st> recorded(event, [](cudaEvent_t e) { cudaEventDestroy(e); });
  CheckCuda(cudaEventRecord(event, static_cast<cudaStream_t>(stream)),
            "recording the work queued on the caller's stream on " + device.ToString());
  return [recorded, device] {
    CurrentDevice current(device.id);
    CheckCuda(cudaEventSynchronize(recorded.get()), "waiting for the caller's stream on " + device.ToString());
  };
}

size_t CudaMemory::Capacity(const Device& device) const {
  Require(device);
  CurrentDevice current(device.id);
  size_t free = 0, total = 0;
  CheckCuda(cudaMemGetInfo(&free, &total), "reading the memory size of " + device.ToString());
  return total;
}

}  // namespace qv::cuda
