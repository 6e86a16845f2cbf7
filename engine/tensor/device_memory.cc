#include "tensor/device_memory.h"

#include <cstring>
#include <map>
#include <mutex>


namespace qv {
namespace {

// Host memory: Storage's aligned blocks and memcpy.
class HostMemory : public DeviceMemory {
 public:
  void Require(const Device&) const override {}  // as in MXNet, any cpu(N) is host memory
  std::shared_ptr<Storage> Allocate(const Device&, size_t bytes) const override { return Storage::Allocate(bytes); }
  void CopyFromHost(const Device&, void* dst, const void* src, size_t bytes) const override { std::memcpy(dst, src, bytes); }
  void CopyToHost(const Device&, void* dst, const void* src, size_t bytes) const override { std::memcpy(dst, src, bytes); }
  void Copy(const Device&, void* dst, const void* src, size_t bytes) const override { std::memcpy(dst, src, bytes); }
  void SetZero(const Device&, void* dst, size_t bytes) const override { std::memset(dst, 0, bytes); }
};

struct Registry {
  std::mutex mu;
  std::map<DeviceType, const DeviceMemory*> memories{{DeviceType::kCpu, new HostMemory}};
};

Registry& TheRegistry() {
  static auto* registry = new Registry();
  return *registry;
}

}  // namespace

void RegisterDeviceMemory(DeviceType type, const DeviceMemory* memory) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.memories[type] = memory;
}

const DeviceMemory& DeviceMemoryOf(const Device& device) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.memories.find(device.type);
  if (it == r.memories.end()) throw NoBackendError(device);
  return *it->second;
}

Error NoBackendError(const Device& device) {
  return Error(Status::kDevice, "device " + device.ToString() +
                                    " is not available: this build of Quiver has no backend for it (GPUs: see the "
                                    "README's CUDA section, scripts/build_cuda.sh)");
}

}  // namespace qv
