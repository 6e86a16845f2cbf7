#include "backends/emulated_gpu/runtime/host_backed_memory.h"

namespace qv::emulated_gpu {
namespace {

// The host's own memory (tensor/device_memory.cc), which every call but the device checks goes to.
const DeviceMemory& Host() { return DeviceMemoryOf(Device{}); }

}  // namespace

void HostBackedMemory::Require(const Device& device) const {
  Check(device.id == 0, Status::kDevice,
        "device " + device.ToString() + " does not exist (the emulated GPU, QUIVER_EMULATED_GPU=1, is gpu(0) only)");
}

std::shared_ptr<Storage> HostBackedMemory::Allocate(const Device& device, size_t bytes) const {
  Require(device);
  return Host().Allocate(Device{}, bytes);
}

std::shared_ptr<Storage> HostBackedMemory::AllocateUninitialized(const Device& device, size_t bytes) const {
  Require(device);
  return Host().AllocateUninitialized(Device{}, bytes);
}

void HostBackedMemory::CopyFromHost(const Device&, void* dst, const void* host_src, size_t bytes) const {
  Host().CopyFromHost(Device{}, dst, host_src, bytes);
}

void HostBackedMemory::CopyToHost(const Device&, void* host_dst, const void* src, size_t bytes) const {
  Host().CopyToHost(Device{}, host_dst, src, bytes);
}

void HostBackedMemory::Copy(const Device&, void* dst, const void* src, size_t bytes) const {
  Host().Copy(Device{}, dst, src, bytes);
}

void HostBackedMemory::SetZero(const Device&, void* dst, size_t bytes) const { Host().SetZero(Device{}, dst, bytes); }

size_t HostBackedMemory::Capacity(const Device&) const { return Host().Capacity(Device{}); }

std::function<void()> HostBackedMemory::AfterStream(const Device&, void*) const { return {}; }

}  // namespace qv::emulated_gpu
