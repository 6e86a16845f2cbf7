#include "tensor/huge_pages.h"

#include <sys/mman.h>

#include <cstdlib>

namespace qv {

void* AllocateLarge(size_t bytes) {
  const size_t rounded = (bytes + 63) / 64 * 64;
  if (rounded < kHugePageBytes) return std::aligned_alloc(64, rounded);
  // posix_memalign: aligned_alloc wants a size that is a multiple of the alignment.
  void* data = nullptr;
  if (posix_memalign(&data, kHugePageBytes, rounded) != 0) return nullptr;
#ifdef MADV_HUGEPAGE
  // Advice only: the whole huge pages inside the buffer; small pages where the kernel has THP off.
  madvise(data, rounded / kHugePageBytes * kHugePageBytes, MADV_HUGEPAGE);
#endif
  return data;
}

}  // namespace qv
