#include "backends/cpu/runtime/compute_pool.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

using namespace qv;

TEST_CASE("every task of a loop runs exactly once, before Run returns", "[scheduler][pool]") {
  ComputePool pool(3);
  for (int threads : {1, 2, 4}) {
    for (int n : {0, 1, 2, 7, 64}) {
      std::vector<std::atomic<int>> runs(static_cast<size_t>(n));
      std::atomic<int> wrong_count{0};  // Catch's assertions are for the test's own thread only
      pool.Run(threads, n, [&](int i, int count) {
        if (count != n) wrong_count.fetch_add(1);
        runs[static_cast<size_t>(i)].fetch_add(1);
      });
      REQUIRE(wrong_count.load() == 0);
      for (int i = 0; i < n; ++i) REQUIRE(runs[static_cast<size_t>(i)].load() == 1);
    }
  }
}

TEST_CASE("a loop runs on no more threads than it was given", "[scheduler][pool]") {
  ComputePool pool(3);
  for (int threads : {1, 2, 3}) {
    std::mutex mu;
    std::set<std::thread::id> seen;
    pool.Run(threads, 64, [&](int, int) {
      {
        std::lock_guard<std::mutex> lock(mu);
        seen.insert(std::this_thread::get_id());
      }
      std::this_thread::sleep_for(std::chrono::microseconds(200));  // long enough for helpers to join
    });
    CHECK(static_cast<int>(seen.size()) <= threads);
    if (threads == 1) CHECK(seen == std::set<std::thread::id>{std::this_thread::get_id()});
  }
}

TEST_CASE("helpers join a loop: two tasks that wait for each other both finish", "[scheduler][pool]") {
  ComputePool pool(1);
  std::atomic<int> arrived{0};
  pool.Run(2, 2, [&](int, int) {
    arrived.fetch_add(1);
    while (arrived.load() < 2) std::this_thread::yield();  // needs a second thread to get past
  });
  REQUIRE(arrived.load() == 2);
}

TEST_CASE("tasks know they run in parallel, and a loop inside a task runs on its thread", "[scheduler][pool]") {
  ComputePool pool(2);
  REQUIRE_FALSE(ComputePool::InParallel());
  std::atomic<int> inner{0}, outside_parallel{0};
  pool.Run(3, 6, [&](int, int) {
    if (!ComputePool::InParallel()) outside_parallel.fetch_add(1);
    const auto self = std::this_thread::get_id();
    pool.Run(3, 4, [&](int, int) {
      if (std::this_thread::get_id() == self) inner.fetch_add(1);
    });
  });
  CHECK(outside_parallel.load() == 0);
  CHECK(inner.load() == 24);
  REQUIRE_FALSE(ComputePool::InParallel());
}

TEST_CASE("loops from many callers at once share the helpers and all complete", "[scheduler][pool]") {
  ComputePool pool(2);
  constexpr int kCallers = 6, kLoops = 200, kTasks = 17;
  std::atomic<long> total{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&, c] {
      for (int l = 0; l < kLoops; ++l) {
        std::vector<int> out(kTasks, 0);
        pool.Run(1 + (c + l) % 3, kTasks, [&](int i, int) { out[static_cast<size_t>(i)] = i + 1; });
        long sum = 0;
        for (int v : out) sum += v;
        total.fetch_add(sum);
      }
    });
  }
  for (auto& t : callers) t.join();
  REQUIRE(total.load() == static_cast<long>(kCallers) * kLoops * kTasks * (kTasks + 1) / 2);
}

TEST_CASE("ParallelFor covers a range once in contiguous pieces", "[scheduler][pool]") {
  for (int threads : {1, 2, 5}) {
    for (int64_t n : {0, 1, 3, 1000}) {
      std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
      ParallelFor(threads, n, [&](int64_t i) { hits[static_cast<size_t>(i)].fetch_add(1); });
      for (int64_t i = 0; i < n; ++i) REQUIRE(hits[static_cast<size_t>(i)].load() == 1);
    }
  }
}
