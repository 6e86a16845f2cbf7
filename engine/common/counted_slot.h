// One place under a limit counted by an atomic (max_inflight, max_queue): TryTake counts it in; the
// slot counts it out when destroyed, however the work it guards ended.
#pragma once

#include <atomic>
#include <memory>

namespace qv {

class CountedSlot {
 public:
  // A place for a caller that has already counted itself in.
  explicit CountedSlot(std::atomic<int>* count) : count_(count) {}
  // Counts in and returns the place; null (nothing counted) when `limit` places are taken already.
  static std::unique_ptr<CountedSlot> TryTake(std::atomic<int>* count, int limit) {
    if (count->fetch_add(1) >= limit) {
      count->fetch_sub(1);
      return nullptr;
    }
    return std::make_unique<CountedSlot>(count);
  }
  ~CountedSlot() { Release(); }
  CountedSlot(const CountedSlot&) = delete;
  CountedSlot& operator=(const CountedSlot&) = delete;

  // Counts out now instead of at destruction; later calls (and the destructor) do nothing.
  void Release() {
    if (!released_.exchange(true)) count_->fetch_sub(1);
  }

 private:
  std::atomic<int>* count_;
  std::atomic<bool> released_{false};
};

}  // namespace qv
