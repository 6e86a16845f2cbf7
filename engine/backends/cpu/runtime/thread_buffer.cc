#include "backends/cpu/runtime/thread_buffer.h"

#include <cstdlib>
#include <string>

#include "common/error.h"
#include "tensor/huge_pages.h"
#include "tensor/memory_stats.h"

namespace qv::cpu {

void ThreadBuffer::Reset(size_t bytes) {
  std::free(data_);
  memory_stats::RemoveBytes(static_cast<int64_t>(size_));
  data_ = nullptr;
  size_ = 0;
  if (bytes == 0) return;
  const size_t rounded = (bytes + 63) / 64 * 64;
  data_ = AllocateLarge(rounded);
  if (!data_) throw Error(Status::kOutOfMemory, "cannot allocate a " + std::to_string(bytes) + "-byte thread buffer");
  size_ = rounded;
  memory_stats::AddBytes(static_cast<int64_t>(size_));
}

}  // namespace qv::cpu
