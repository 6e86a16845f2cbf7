// The process's compute threads. A kernel's parallel loop runs on the thread that runs the kernel plus
// helpers from one shared pool, as many as the kernel's lease on the CPU budget allows (cpu_budget.h),
// so the busy threads never exceed the budget however many invocations run at once.
//
// Helpers spin for a short while after each loop before they sleep: the next kernel of a plan starts
// within microseconds, and a sleeping thread takes tens of microseconds to wake. (OpenMP, which this
// replaces, kept one team per calling thread; with more teams than CPUs libgomp stops spinning, and its
// threads slept and woke twice per kernel.)
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace qv {

class ComputePool {
 public:
  // The process's pool: one helper fewer than the CPUs this process may use.
  static ComputePool& Get();
  explicit ComputePool(int helpers);
  ~ComputePool();  // stops the helpers; no Run may be in progress
  ComputePool(const ComputePool&) = delete;
  ComputePool& operator=(const ComputePool&) = delete;

  // Runs task(i, n) for every i in [0, n) on this thread and on at most `threads` - 1 helpers, which
  // take the next undone i as they come free; returns once all n have run. Inside a task, or with one
  // thread, the tasks run here one after another. Tasks must not throw.
  void Run(int threads, int n, const std::function<void(int, int)>& task);

  // Whether this thread is running a task of Run.
  static bool InParallel();

 private:
  struct Job;
  void HelperLoop();
  Job* TakeLocked();
  static void Work(Job& job);

  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<Job*> jobs_;  // jobs that still want helpers
  int sleeping_ = 0;
  bool stopping_ = false;
  std::atomic<bool> has_jobs_{false};  // !jobs_.empty(), read without the lock while spinning
  std::vector<std::thread> helpers_;
};

// Splits [0, n) into one contiguous range per thread (at most `threads`) and calls body(i) for each i.
template <typename Body>
void ParallelFor(int threads, int64_t n, const Body& body) {
  const int64_t chunks = std::clamp<int64_t>(threads, 1, std::max<int64_t>(n, 1));
  ComputePool::Get().Run(static_cast<int>(chunks), static_cast<int>(chunks), [&](int c, int count) {
    const int64_t begin = n * c / count, end = n * (c + 1) / count;
    for (int64_t i = begin; i < end; ++i) body(i);
  });
}

}  // namespace qv
