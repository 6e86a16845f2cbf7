#include "scheduler/cpu_budget.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <thread>
#include <vector>

using namespace qv;

TEST_CASE("one invocation alone leases the whole budget", "[scheduler][budget]") {
  CpuBudget budget(4);
  CpuBudget::Participant p(&budget);
  auto lease = budget.Acquire(8);
  REQUIRE(lease.threads() == 4);
}

TEST_CASE("a lease takes no more threads than the kernel is worth, leaving the rest free", "[scheduler][budget]") {
  CpuBudget budget(4);
  CpuBudget::Participant p(&budget);
  auto small = budget.Acquire(1);
  REQUIRE(small.threads() == 1);
  auto rest = budget.Acquire(8);
  REQUIRE(rest.threads() == 2);  // 3 free, rounded down to a power of two
}

TEST_CASE("tiny kernels are worth one thread, larger ones several", "[scheduler][budget]") {
  // A 1000-element softmax or a 7x7x64 elementwise add: well under 5 us of one thread's time.
  CHECK(ThreadsWorthUsing(5e3, 8e3) == 1);
  CHECK(ThreadsWorthUsing(0, 3 * 4 * 7 * 7 * 64.0) == 1);
  // A small MobileNet's 1x1 convolution (14x14, 128 -> 128 channels): ~6 MFLOP, ~0.2 MB: ~40 us.
  CHECK(ThreadsWorthUsing(6.4e6, 2.0e5) >= 4);
  // A ResNet-18 3x3 convolution (56x56, 64 -> 64 channels): ~231 MFLOP.
  CHECK(ThreadsWorthUsing(2.31e8, 1.6e6) >= 64);
  CHECK(ThreadsWorthUsing(1e15, 0) == 1024);  // bounded
}

TEST_CASE("concurrent invocations share the budget fairly", "[scheduler][budget]") {
  CpuBudget budget(4);
  CpuBudget::Participant a(&budget), b(&budget);
  auto first = budget.Acquire(4);
  auto second = budget.Acquire(4);
  REQUIRE(first.threads() == 2);
  REQUIRE(second.threads() == 2);
}

TEST_CASE("leases never exceed the budget under contention", "[scheduler][budget]") {
  constexpr int kBudget = 3;
  CpuBudget budget(kBudget);
  std::atomic<int> leased{0}, peak{0};
  std::atomic<bool> empty_lease{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      CpuBudget::Participant p(&budget);
      for (int i = 0; i < 500; ++i) {
        auto lease = budget.Acquire(1 + i % kBudget);
        if (lease.threads() < 1) empty_lease = true;  // Catch2 asserts on the test's thread only
        const int now = leased.fetch_add(lease.threads()) + lease.threads();
        int seen = peak.load();
        while (now > seen && !peak.compare_exchange_weak(seen, now)) {
        }
        std::this_thread::yield();
        leased.fetch_sub(lease.threads());
      }
    });
  for (auto& t : threads) t.join();
  REQUIRE_FALSE(empty_lease.load());
  REQUIRE(peak.load() <= kBudget);
  REQUIRE(leased.load() == 0);
}

TEST_CASE("the detected CPU count respects the affinity mask", "[scheduler][budget]") {
  const int cpus = DetectUsableCpus();
  REQUIRE(cpus >= 1);
  REQUIRE(cpus <= static_cast<int>(std::thread::hardware_concurrency()));
}

TEST_CASE("a budget changed while leases are held takes effect as they end", "[scheduler][budget]") {
  CpuBudget budget(4);
  CpuBudget::Participant p(&budget);
  {
    auto all = budget.Acquire(4);
    REQUIRE(all.threads() == 4);
    budget.SetThreads(2);  // four held under a budget of two: none free until they end
    REQUIRE(budget.threads() == 2);
  }
  REQUIRE(budget.Acquire(8).threads() == 2);
  budget.SetThreads(6);
  REQUIRE(budget.Acquire(8).threads() == 6);
  budget.SetThreads(0);  // at least one
  REQUIRE(budget.Acquire(8).threads() == 1);
}

TEST_CASE("the starting budget is the smallest of the CPUs, QUIVER_NUM_THREADS and OMP_NUM_THREADS",
          "[scheduler][budget]") {
  const int cpus = DetectUsableCpus();
  auto starting = [](const char* quiver, const char* omp) {
    quiver ? setenv("QUIVER_NUM_THREADS", quiver, 1) : unsetenv("QUIVER_NUM_THREADS");
    omp ? setenv("OMP_NUM_THREADS", omp, 1) : unsetenv("OMP_NUM_THREADS");
    const int threads = StartingThreads();
    unsetenv("QUIVER_NUM_THREADS");
    unsetenv("OMP_NUM_THREADS");
    return threads;
  };
  CHECK(starting(nullptr, nullptr) == cpus);
  CHECK(starting(nullptr, "1") == 1);                 // a Spark or Ray worker given one CPU
  CHECK(starting("1", "8") == 1);
  CHECK(starting("8", "1") == 1);
  CHECK(starting(nullptr, "1,2") == 1);               // OpenMP's nested list: its first level
  CHECK(starting("100000", "x") == cpus);             // not counts: ignored
  CHECK(starting(nullptr, std::to_string(cpus + 5).c_str()) == cpus);  // never above the CPUs
}
