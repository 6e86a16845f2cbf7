#include <map>
#include <mutex>

#include "backends/backend.h"
#include "common/error.h"

namespace qv {
namespace {

struct Registry {
  std::mutex mu;
  std::map<DeviceType, const Backend*> backends;
};

Registry& TheRegistry() {
  static auto* registry = new Registry();
  return *registry;
}

}  // namespace

void RegisterBackend(const Backend* backend) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.backends[backend->device_type()] = backend;
}

const Backend& FindBackend(const Device& device) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.backends.find(device.type);
  if (it == r.backends.end()) throw NoBackendError(device);
  return *it->second;
}

}  // namespace qv
