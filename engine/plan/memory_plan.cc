#include "plan/memory_plan.h"

#include <algorithm>
#include <iterator>
#include <map>

namespace qv {
namespace {

// Kernels count on it: the CUDA backend tells cuBLASLt its operands are 64-byte aligned.
constexpr size_t kAlign = 64;

size_t Aligned(size_t n) { return (std::max<size_t>(n, 1) + kAlign - 1) / kAlign * kAlign; }

// Free byte ranges of the workspace, coalesced, keyed by offset.
class FreeList {
 public:
  size_t Allocate(size_t bytes, size_t* end) {
    auto best = free_.end();
    for (auto it = free_.begin(); it != free_.end(); ++it)
      if (it->second >= bytes && (best == free_.end() || it->second < best->second)) best = it;
    if (best != free_.end()) {
      const size_t offset = best->first, size = best->second;
      free_.erase(best);
      if (size > bytes) free_[offset + bytes] = size - bytes;
      return offset;
    }
    // Grow the workspace, starting inside a free range that touches its end.
    size_t offset = *end;
    if (!free_.empty()) {
      auto last = std::prev(free_.end());
      if (last->first + last->second == *end) {
        offset = last->first;
        free_.erase(last);
      }
    }
    *end = offset + bytes;
    return offset;
  }

  void Release(size_t offset, size_t bytes) {
    auto it = free_.emplace(offset, bytes).first;
    auto next = std::next(it);
    if (next != free_.end() && it->first + it->second == next->first) {
      it->second += next->second;
      free_.erase(next);
    }
    if (it != free_.begin()) {
      auto prev = std::prev(it);
      if (prev->first + prev->second == it->first) {
        prev->second += it->second;
        free_.erase(it);
      }
    }
  }

 private:
  std::map<size_t, size_t> free_;
};

}  // namespace

MemoryPlan PlanMemory(const std::vector<BufferLifetime>& buffers) {
  MemoryPlan plan;
  plan.offsets.assign(buffers.size(), 0);
  int last = -1;
  for (const auto& b : buffers) last = std::max(last, b.last_step);
  std::vector<std::vector<size_t>> starts(last + 2), ends(last + 2);
  for (size_t i = 0; i < buffers.size(); ++i) {
    starts[buffers[i].first_step].push_back(i);
    ends[std::max(buffers[i].last_step, buffers[i].first_step)].push_back(i);
  }
  FreeList free_list;
  size_t end = 0;
  for (int step = 0; step <= last; ++step) {
    for (size_t i : starts[step]) plan.offsets[i] = free_list.Allocate(Aligned(buffers[i].bytes), &end);
    for (size_t i : ends[step]) free_list.Release(plan.offsets[i], Aligned(buffers[i].bytes));
  }
  plan.total_bytes = end;
  return plan;
}

}  // namespace qv
