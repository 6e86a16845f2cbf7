#include "scheduler/cpu_budget.h"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>

namespace qv {
namespace {

// CPU quota of a cgroup v2 ("max 100000" or "150000 100000") or v1 (cfs quota / period), or 0.
int CgroupCpuLimit() {
  std::ifstream v2("/sys/fs/cgroup/cpu.max");
  std::string quota;
  long long period = 0;
  if (v2 >> quota >> period) {
    if (quota == "max" || period <= 0) return 0;
    return static_cast<int>(std::ceil(std::stod(quota) / static_cast<double>(period)));
  }
  std::ifstream q("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"), p("/sys/fs/cgroup/cpu/cpu.cfs_period_us");
  long long quota_us = 0, period_us = 0;
  if (q >> quota_us && p >> period_us && quota_us > 0 && period_us > 0)
    return static_cast<int>((quota_us + period_us - 1) / period_us);
  return 0;
}

// A thread count from the environment (up to a ',' for OpenMP's nested list), or 0.
int ThreadsFromEnvironment(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr) return 0;
  char* end = nullptr;
  const long n = std::strtol(text, &end, 10);
  return (end != text && (*end == '\0' || *end == ',') && n > 0 && n <= 4096) ? static_cast<int>(n) : 0;
}

}  // namespace

int DetectUsableCpus() {
  int cpus = 0;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) cpus = CPU_COUNT(&set);
  if (cpus <= 0) cpus = 1;
  const int quota = CgroupCpuLimit();
  if (quota > 0) cpus = std::min(cpus, quota);
  return std::max(cpus, 1);
}

int StartingThreads() {
  int threads = DetectUsableCpus();
  for (const char* name : {"QUIVER_NUM_THREADS", "OMP_NUM_THREADS"})
    if (const int n = ThreadsFromEnvironment(name); n > 0) threads = std::min(threads, n);
  return threads;
}

CpuBudget& CpuBudget::Get() {
  static CpuBudget* budget = new CpuBudget(StartingThreads());
  return *budget;
}

CpuBudget::CpuBudget(int threads) : total_(std::max(threads, 1)), free_(total_) {}

void CpuBudget::SetThreads(int threads) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    const int total = std::max(threads, 1);
    free_ += total - total_;
    total_ = total;
  }
  freed_.notify_all();
}

int ThreadsWorthUsing(double flops, double bytes) {
  // One core's rough rates: ~200 GFLOP/s of float32 arithmetic (bench/gemm_peak), ~20 GB/s streamed.
  const double microseconds = flops / 200e3 + bytes / 20e3;
  constexpr double kMicrosecondsPerThread = 5;  // measured: docs/performance.rst
  return static_cast<int>(std::clamp(microseconds / kMicrosecondsPerThread, 1.0, 1024.0));
}

CpuBudget::Lease CpuBudget::Acquire(int most) {
  std::unique_lock<std::mutex> lock(mu_);
  freed_.wait(lock, [&] { return free_ > 0; });
  const int share = std::max(1, total_.load(std::memory_order_relaxed) / std::max(participants_, 1));
  const int n = LeaseSize(std::min({free_, share, most}));
  free_ -= n;
  return Lease(this, n);
}

int CpuBudget::LeaseSize(int wanted) const {
  const int total = total_.load(std::memory_order_relaxed);
  const int n = std::clamp(wanted, 1, total);
  // Kernels keep one oneDNN primitive per thread count: powers of two (or the whole budget) keep
  // those few.
  if (n == total) return n;
  int pow2 = 1;
  while (pow2 * 2 <= n) pow2 *= 2;
  return pow2;
}

void CpuBudget::Release(int n) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    free_ += n;
  }
  freed_.notify_all();
}

void CpuBudget::Join() {
  std::lock_guard<std::mutex> lock(mu_);
  ++participants_;
}

void CpuBudget::Leave() {
  std::lock_guard<std::mutex> lock(mu_);
  --participants_;
}

}  // namespace qv
