#include "backends/backend.h"
#include "common/device_registry.h"

namespace qv {
namespace {

DeviceTypeRegistry<Backend>& Registry() {
  static auto* registry = new DeviceTypeRegistry<Backend>();
  return *registry;
}

}  // namespace

void RegisterBackend(const Backend* backend) {
  RegisterDeviceMemory(backend->device_type(), &backend->memory());
  Registry().Register(backend->device_type(), backend);
}

const Backend& FindBackend(const Device& device) {
  const Backend* backend = Registry().Find(device.type);
  if (backend == nullptr) throw NoBackendError(device);
  return *backend;
}

}  // namespace qv
