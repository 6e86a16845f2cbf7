#include "tensor/storage.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <string>

#include "common/error.h"
#include "common/fault_injection.h"
#include "tensor/huge_pages.h"
#include "tensor/memory_limit.h"
#include "tensor/memory_stats.h"

namespace qv {

namespace {

// The memory limit of this process's cgroup (v2 memory.max, v1 memory.limit_in_bytes), or SIZE_MAX.
size_t CgroupMemoryLimit() {
  for (const char* path : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream in(path);
    unsigned long long bytes = 0;
    if (in >> bytes && bytes > 0) return static_cast<size_t>(bytes);  // "max" (no limit) fails to parse
  }
  return SIZE_MAX;
}

}  // namespace

size_t Storage::MaxBytes() {
  static const size_t bytes = [] {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    const size_t physical =
        pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) : SIZE_MAX;
    const size_t available = std::min(physical, CgroupMemoryLimit());
    return std::min(available, ParseMemoryLimit(std::getenv("QUIVER_MEMORY_LIMIT"), available));
  }();
  return bytes;
}

std::shared_ptr<Storage> Storage::Allocate(size_t bytes) {
  fault::Hit(fault::Site::kAllocation);
  const size_t held = std::min<size_t>(memory_stats::BytesInUse(), MaxBytes());
  if (bytes > MaxBytes() - held)
    throw Error(Status::kOutOfMemory, "cannot allocate " + std::to_string(bytes) + " bytes: the runtime holds " +
                                          std::to_string(held) + " of the " + std::to_string(MaxBytes()) +
                                          " bytes this process may use");
  constexpr size_t kAlign = 64;
  const size_t rounded = (bytes + kAlign - 1) / kAlign * kAlign;
  void* p = rounded == 0 ? nullptr : AllocateLarge(rounded);
  if (rounded != 0 && p == nullptr)
    throw Error(Status::kOutOfMemory, "cannot allocate " + std::to_string(bytes) + " bytes");
  if (p) std::memset(p, 0, rounded);
  memory_stats::AddBytes(static_cast<int64_t>(rounded));
  return std::shared_ptr<Storage>(new Storage(p, rounded, true, nullptr, nullptr));
}

std::shared_ptr<Storage> Storage::Wrap(void* data, size_t bytes, ReleaseFn release, void* ctx) {
  return std::shared_ptr<Storage>(new Storage(data, bytes, false, release, ctx));
}

Storage::~Storage() {
  if (owned_) {
    std::free(data_);
    memory_stats::RemoveBytes(static_cast<int64_t>(size_));
  } else if (release_) {
    release_(ctx_);
  }
}

}  // namespace qv
