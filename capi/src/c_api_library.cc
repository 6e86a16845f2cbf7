// Library-level functions: version, memory statistics and the compute-thread budget.
#include "handles.h"
#include "scheduler/cpu_budget.h"
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

int QvSetNumThreads(int threads) {
  return capi::Guard([&] {
    Check(threads >= 1 && threads <= 4096, Status::kInvalidArgument,
          "a thread budget of " + std::to_string(threads) + " is out of range (1 to 4096)");
    CpuBudget::Get().SetThreads(threads);
  });
}

int QvGetNumThreads(int* threads) {
  return capi::Guard([&] {
    capi::Require(threads, "threads");
    *threads = CpuBudget::Get().threads();
  });
}

int QvWaitAll(void) {
  return capi::Guard([] { Engine::Get().WaitAll(); });
}

}  // extern "C"
