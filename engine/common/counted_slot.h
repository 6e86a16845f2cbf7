// One place under a limit counted by an atomic (max_inflight, max_queue): the caller has already
// counted itself in; the slot counts it out when destroyed, however the work it guards ended.
#pragma once

#include <atomic>

namespace qv {

class CountedSlot {
 public:
  explicit CountedSlot(std::atomic<int>* count) : count_(count) {}
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
