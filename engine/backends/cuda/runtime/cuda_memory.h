// GPU memory for arrays, workspaces and batches: the CUDA backend's DeviceMemory.
#pragma once

#include "tensor/device_memory.h"

namespace qv::cuda {

class CudaMemory : public DeviceMemory {
 public:
  void Require(const Device& device) const override;
  std::shared_ptr<Storage> Allocate(const Device& device, size_t bytes) const override;
  std::shared_ptr<Storage> AllocateUninitialized(const Device& device, size_t bytes) const override;
  void CopyFromHost(const Device& device, void* dst, const void* host_src, size_t bytes) const override;
  void CopyToHost(const Device& device, void* host_dst, const void* src, size_t bytes) const override;
  void Copy(const Device& device, void* dst, const void* src, size_t bytes) const override;
  void SetZero(const Device& device, void* dst, size_t bytes) const override;
  size_t Capacity(const Device& device) const override;
  // An event recorded on `stream` now, which the returned function waits for (blocking, not spinning).
  std::function<void()> AfterStream(const Device& device, void* stream) const override;
};

}  // namespace qv::cuda
