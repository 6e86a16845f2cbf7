// The compute-thread budget: how many threads may compute at once in this process, and a fair split
// of them among the invocations running at the same time.
//
// The budget starts as the smallest of the CPUs this process may really use (affinity mask, cgroup
// v1/v2 CPU quota), QUIVER_NUM_THREADS and OMP_NUM_THREADS (Quiver uses no OpenMP, but Spark and Ray
// set it to the CPUs they gave a worker process), and SetThreads changes it at any time. The engine
// runs at most the starting budget's invocations at once, and each kernel leases threads for its
// duration: one invocation alone gets all of them; N concurrent ones share them, so the busy compute
// threads never exceed the budget.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>

namespace qv {

// CPUs usable by this process: min(affinity mask, cgroup quota), at least 1.
int DetectUsableCpus();

// The starting budget: DetectUsableCpus(), lowered by QUIVER_NUM_THREADS and OMP_NUM_THREADS where
// set to a count (OpenMP's list form "4,2" counts its first level; other values are ignored).
int StartingThreads();

// How many threads a kernel doing `flops` arithmetic and moving `bytes` is worth: one per ~5 us of its
// estimated single-thread time. The compute pool's helpers are still awake between the kernels of a
// plan (compute_pool.h), so a helper joins a loop within a microsecond or two: only the tiniest
// kernels stay on one thread.
int ThreadsWorthUsing(double flops, double bytes);

class CpuBudget {
 public:
  static CpuBudget& Get();
  explicit CpuBudget(int threads);

  int threads() const { return total_.load(std::memory_order_relaxed); }
  // Changes the budget (1 or more): later leases take shares of the new one; leases held meanwhile
  // end as they are.
  void SetThreads(int threads);

  // Threads for one kernel; returned to the budget when destroyed.
  class Lease {
   public:
    Lease(CpuBudget* budget, int n) : budget_(budget), n_(n) {}
    Lease(Lease&& o) noexcept : budget_(o.budget_), n_(o.n_) { o.n_ = 0; }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() {
      if (n_ > 0) budget_->Release(n_);
    }
    int threads() const { return n_; }

   private:
    CpuBudget* budget_;
    int n_;
  };

  // Marks an invocation as running (it competes for threads) until the guard is destroyed.
  class Participant {
   public:
    explicit Participant(CpuBudget* budget) : budget_(budget) { budget_->Join(); }
    ~Participant() { budget_->Leave(); }
    Participant(const Participant&) = delete;
    Participant& operator=(const Participant&) = delete;

   private:
    CpuBudget* budget_;
  };

  // Blocks until a thread is free, then takes this invocation's fair share of the free threads, and
  // at most `most`.
  Lease Acquire(int most);

 private:
  // The threads a lease of `wanted` (at most the budget) holds: a power of two, or the whole budget.
  int LeaseSize(int wanted) const;
  void Release(int n);
  void Join();
  void Leave();

  std::atomic<int> total_;  // written under mu_
  std::mutex mu_;
  std::condition_variable freed_;
  int free_;  // below zero while leases taken under a larger budget are held
  int participants_ = 0;
};

}  // namespace qv
