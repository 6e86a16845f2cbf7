// The emulated GPU's memory: gpu(0) arrays whose bytes are host memory underneath, allocated and copied
// by the host's own DeviceMemory. The layers above see a device other than the host (QvNDArrayGetData
// refuses its arrays; reads go through copies), which is what the emulation is for.
#pragma once

#include "tensor/device_memory.h"

namespace qv::emulated_gpu {

class HostBackedMemory : public DeviceMemory {
 public:
  void Require(const Device& device) const override;
  std::shared_ptr<Storage> Allocate(const Device& device, size_t bytes) const override;
  std::shared_ptr<Storage> AllocateUninitialized(const Device& device, size_t bytes) const override;
  void CopyFromHost(const Device& device, void* dst, const void* host_src, size_t bytes) const override;
  void CopyToHost(const Device& device, void* host_dst, const void* src, size_t bytes) const override;
  void Copy(const Device& device, void* dst, const void* src, size_t bytes) const override;
  void SetZero(const Device& device, void* dst, size_t bytes) const override;
  size_t Capacity(const Device& device) const override;
  // Nothing to wait for: the emulated device computes and copies synchronously, so whatever a stream
  // of a caller's produced has been written by the time its pointer reaches the runtime.
  std::function<void()> AfterStream(const Device& device, void* stream) const override;
};

}  // namespace qv::emulated_gpu
