// Library-level functions: version and memory statistics.
#include "handles.h"
#include "tensor/memory_stats.h"

using namespace qv;

extern "C" {

int QvGetVersion(int* major, int* minor, int* patch) {
  if (major) *major = QUIVER_VERSION_MAJOR;
  if (minor) *minor = QUIVER_VERSION_MINOR;
  if (patch) *patch = QUIVER_VERSION_PATCH;
  return QV_OK;
}

int QvGetMemoryStats(uint64_t* bytes_in_use, uint64_t* arrays_alive) {
  if (bytes_in_use) *bytes_in_use = memory_stats::BytesInUse();
  if (arrays_alive) *arrays_alive = memory_stats::ArraysAlive();
  return QV_OK;
}

int QvWaitAll(void) {
  return capi::Guard([] { Engine::Get().WaitAll(); });
}

}  // extern "C"
