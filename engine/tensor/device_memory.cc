#include "tensor/device_memory.h"

#include <cstring>

#include "common/device_registry.h"

namespace qv {
namespace {

// Host memory: Storage's aligned blocks and memcpy.
class HostMemory : public DeviceMemory {
 public:
  void Require(const Device&) const override {}  // as in MXNet, any cpu(N) is host memory
  std::shared_ptr<Storage> Allocate(const Device&, size_t bytes) const override { return Storage::Allocate(bytes); }
  std::shared_ptr<Storage> AllocateUninitialized(const Device& device, size_t bytes) const override {
    return Allocate(device, bytes);
  }
  void CopyFromHost(const Device&, void* dst, const void* src, size_t bytes) const override { std::memcpy(dst, src, bytes); }
  void CopyToHost(const Device&, void* dst, const void* src, size_t bytes) const override { std::memcpy(dst, src, bytes); }
  void Copy(const Device&, void* dst, const void* src, size_t bytes) const override { std::memcpy(dst, src, bytes); }
  void SetZero(const Device&, void* dst, size_t bytes) const override { std::memset(dst, 0, bytes); }
  size_t Capacity(const Device&) const override { return Storage::MaxBytes(); }
};

DeviceTypeRegistry<DeviceMemory>& Registry() {
  static auto* registry = [] {
    auto* r = new DeviceTypeRegistry<DeviceMemory>();
    r->Register(DeviceType::kCpu, new HostMemory);
    return r;
  }();
  return *registry;
}

}  // namespace

std::function<void()> DeviceMemory::AfterStream(const Device& device, void* stream) const {
  Check(stream == nullptr, Status::kInvalidArgument,
        "memory of " + device.ToString() + " is not produced on a stream: pass a null stream");
  return {};
}

void RegisterDeviceMemory(DeviceType type, const DeviceMemory* memory) { Registry().Register(type, memory); }

const DeviceMemory& DeviceMemoryOf(const Device& device) {
  const DeviceMemory* memory = Registry().Find(device.type);
  if (memory == nullptr) throw NoBackendError(device);
  return *memory;
}

Error NoBackendError(const Device& device) {
  return Error(Status::kDevice, "device " + device.ToString() +
                                    " is not available: this build of Quiver has no backend for it (GPUs: see "
                                    "docs/gpu.rst, scripts/build_cuda.sh)");
}

}  // namespace qv
