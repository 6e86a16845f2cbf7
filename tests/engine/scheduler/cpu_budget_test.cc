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
  auto lease = budget.Acquire();
  REQUIRE(lease.threads() == 4);
}

TEST_CASE("concurrent invocations share the budget fairly", "[scheduler][budget]") {
  CpuBudget budget(4);
  CpuBudget::Participant a(&budget), b(&budget);
  auto first = budget.Acquire();
  auto second = budget.Acquire();
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
        auto lease = budget.Acquire();
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
