#include "backends/emulated_gpu/runtime/host_backed_memory.h"

#include <cstring>

namespace qv::emulated_gpu {

void HostBackedMemory::Require(const Device& device) const {
  Check(device.id == 0, Status::kDevice,
        "device " + device.ToString() + " does not exist (the emulated GPU, QUIVER_EMULATED_GPU=1, is gpu(0) only)");
}

std::shared_ptr<Storage> HostBackedMemory::Allocate(const Device& device, size_t bytes) const {
  Require(device);
  return Storage::Allocate(bytes);
}

std::shared_ptr<Storage> HostBackedMemory::AllocateUninitialized(const Device& device, size_t bytes) const {
  return Allocate(device, bytes);
}

void HostBackedMemory::CopyFromHost(const Device&, void* dst, const void* host_src, size_t bytes) const {
  if (bytes != 0) std::memcpy(dst, host_src, bytes);
}

void HostBackedMemory::CopyToHost(const Device&, void* host_dst, const void* src, size_t bytes) const {
  if (bytes != 0) std::memcpy(host_dst, src, bytes);
}

void HostBackedMemory::Copy(const Device&, void* dst, const void* src, size_t bytes) const {
  if (bytes != 0) std::memmove(dst, src, bytes);
}

void HostBackedMemory::SetZero(const Device&, void* dst, size_t bytes) const {
  if (bytes != 0) std::memset(dst, 0, bytes);
}

size_t HostBackedMemory::Capacity(const Device&) const { return Storage::MaxBytes(); }

std::function<void()> HostBackedMemory::AfterStream(const Device& device, void*) const {
  Require(device);
  return {};
}

}  // namespace qv::emulated_gpu
