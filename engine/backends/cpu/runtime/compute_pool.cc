#include "backends/cpu/runtime/compute_pool.h"

#include <chrono>
#include <thread>

#include "scheduler/cpu_budget.h"

namespace qv {
namespace {

// How long a helper looks for the next loop before it sleeps: longer than the gap between two kernels
// of a plan, short enough that an idle process soon stops using the CPU. While it looks it yields its
// CPU to any other runnable thread (an invocation running on one thread, say), so looking costs
// nothing that real work could have used.
constexpr auto kSpin = std::chrono::microseconds(200);

thread_local bool t_in_parallel = false;

}  // namespace

struct ComputePool::Job {
  const std::function<void(int, int)>* task = nullptr;
  int n = 0;
  int helpers_wanted = 0;             // under mu_
  std::atomic<int> next{0};           // the next task index to take
  std::atomic<int> done{0};           // tasks finished
  std::atomic<int> helpers_inside{0};  // helpers that took the job and have not let go of it
};

ComputePool& ComputePool::Get() {
  // Never destroyed: helpers sleep in it until the process exits. Sized for the CPUs, not the budget,
  // which may change (CpuBudget::SetThreads); leases keep the busy helpers within the budget.
  static auto* pool = new ComputePool(DetectUsableCpus() - 1);
  return *pool;
}

ComputePool::ComputePool(int helpers) {
  for (int i = 0; i < helpers; ++i) helpers_.emplace_back([this] { HelperLoop(); });
}

ComputePool::~ComputePool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& helper : helpers_) helper.join();
}

bool ComputePool::InParallel() { return t_in_parallel; }

void ComputePool::Work(Job& job) {
  const bool outer = t_in_parallel;
  t_in_parallel = true;
  for (int i = job.next.fetch_add(1, std::memory_order_relaxed); i < job.n;
       i = job.next.fetch_add(1, std::memory_order_relaxed)) {
    (*job.task)(i, job.n);
    job.done.fetch_add(1, std::memory_order_release);
  }
  t_in_parallel = outer;
}

void ComputePool::Run(int threads, int n, const std::function<void(int, int)>& task) {
  Job job;
  job.task = &task;
  job.n = n;
  if (threads <= 1 || n <= 1 || t_in_parallel) {
    Work(job);  // here, one task after another
    return;
  }
  int wake = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    job.helpers_wanted = std::min(threads, n) - 1;
    jobs_.push_back(&job);
    has_jobs_.store(true, std::memory_order_release);
    wake = std::min(job.helpers_wanted, sleeping_);  // spinning helpers need no call
  }
  for (int i = 0; i < wake; ++i) wake_.notify_one();
  Work(job);
  {
    // No helper may take the job from here on; those that did are waited for below.
    std::lock_guard<std::mutex> lock(mu_);
    auto it = std::find(jobs_.begin(), jobs_.end(), &job);
    if (it != jobs_.end()) jobs_.erase(it);
    has_jobs_.store(!jobs_.empty(), std::memory_order_release);
  }
  while (job.done.load(std::memory_order_acquire) < n || job.helpers_inside.load(std::memory_order_acquire) > 0)
    std::this_thread::yield();
}

ComputePool::Job* ComputePool::TakeLocked() {
  if (jobs_.empty()) return nullptr;
  Job* job = jobs_.front();
  job->helpers_inside.fetch_add(1, std::memory_order_relaxed);
  if (--job->helpers_wanted == 0) {
    jobs_.pop_front();
    has_jobs_.store(!jobs_.empty(), std::memory_order_release);
  }
  return job;
}

void ComputePool::HelperLoop() {
  auto spin_until = std::chrono::steady_clock::now() + kSpin;
  for (;;) {
    Job* job = nullptr;
    if (has_jobs_.load(std::memory_order_acquire)) {
      std::lock_guard<std::mutex> lock(mu_);
      job = TakeLocked();
    } else if (std::chrono::steady_clock::now() < spin_until) {
      std::this_thread::yield();
      continue;
    } else {
      std::unique_lock<std::mutex> lock(mu_);
      ++sleeping_;
      wake_.wait(lock, [this] { return !jobs_.empty() || stopping_; });
      --sleeping_;
      if (stopping_) return;
      job = TakeLocked();
    }
    if (!job) continue;
    Work(*job);
    job->helpers_inside.fetch_sub(1, std::memory_order_release);
    spin_until = std::chrono::steady_clock::now() + kSpin;
  }
}

}  // namespace qv
