#include "tensor/storage.h"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "common/error.h"
#include "tensor/memory_stats.h"

namespace qv {

namespace {

// Linux overcommits: an allocation larger than the machine may still "succeed" and the process is
// killed when the pages are touched. Larger than physical memory is refused up front instead.
size_t PhysicalMemoryBytes() {
  static const size_t bytes = [] {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) : SIZE_MAX;
  }();
  return bytes;
}

}  // namespace

std::shared_ptr<Storage> Storage::Allocate(size_t bytes) {
  if (bytes > PhysicalMemoryBytes())
    throw Error(QV_ERR_OUT_OF_MEMORY, "cannot allocate " + std::to_string(bytes) + " bytes: the machine has " +
                                          std::to_string(PhysicalMemoryBytes()) + " bytes of memory");
  constexpr size_t kAlign = 64;
  const size_t rounded = (bytes + kAlign - 1) / kAlign * kAlign;
  void* p = rounded == 0 ? nullptr : std::aligned_alloc(kAlign, rounded);
  if (rounded != 0 && p == nullptr)
    throw Error(QV_ERR_OUT_OF_MEMORY, "cannot allocate " + std::to_string(bytes) + " bytes");
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
