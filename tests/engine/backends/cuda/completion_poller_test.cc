// CompletionPoller with fake device work (no GPU): completions are reported once each, on the
// poller's thread, in order for work that completes in order, and out of order for later work that
// completed while older work still ran; failures reach `done`; destruction reports what is pending.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "backends/cuda/runtime/completion_poller.h"

using qv::cuda::CompletionPoller;

namespace {

// Work that completes when the test says so.
class FakeWork {
 public:
  void Complete() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    changed_.notify_all();
  }
  bool ready() {
    std::lock_guard<std::mutex> lock(mu_);
    return done_;
  }
  void Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [&] { return done_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  bool done_ = false;
};

// What the poller reported, in order.
struct Reports {
  std::mutex mu;
  std::condition_variable changed;
  std::vector<int> order;
  std::vector<bool> failed;
  std::vector<std::thread::id> threads;

  void Add(int id, std::exception_ptr failure) {
    {
      std::lock_guard<std::mutex> lock(mu);
      order.push_back(id);
      failed.push_back(failure != nullptr);
      threads.push_back(std::this_thread::get_id());
    }
    changed.notify_all();
  }
  void WaitFor(size_t n) {
    std::unique_lock<std::mutex> lock(mu);
    REQUIRE(changed.wait_for(lock, std::chrono::seconds(10), [&] { return order.size() >= n; }));
  }
};

CompletionPoller::Pending Fake(const std::shared_ptr<FakeWork>& work, Reports* reports, int id, bool fail = false) {
  CompletionPoller::Pending p;
  p.ready = [work] { return work->ready(); };
  p.wait = [work, fail]() -> std::exception_ptr {
    work->Wait();
    return fail ? std::make_exception_ptr(std::runtime_error("kernel faulted")) : nullptr;
  };
  p.done = [reports, id](std::exception_ptr failure) { reports->Add(id, failure); };
  return p;
}

}  // namespace

TEST_CASE("CompletionPoller reports each piece of work once, on its own thread, with its failure", "[cuda][poller]") {
  Reports reports;
  {
    CompletionPoller poller;
    std::vector<std::shared_ptr<FakeWork>> work;
    for (int i = 0; i < 4; ++i) {
      work.push_back(std::make_shared<FakeWork>());
      poller.Add(Fake(work.back(), &reports, i, /*fail=*/i == 2));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    {
      std::lock_guard<std::mutex> lock(reports.mu);
      CHECK(reports.order.empty());  // nothing completed: nothing reported
    }
    for (auto& w : work) w->Complete();
    reports.WaitFor(4);
  }
  CHECK(reports.order == std::vector<int>{0, 1, 2, 3});
  CHECK(reports.failed == std::vector<bool>{false, false, true, false});
  for (const auto& id : reports.threads) CHECK(id != std::this_thread::get_id());
  for (const auto& id : reports.threads) CHECK(id == reports.threads.front());
}

TEST_CASE("CompletionPoller reports later work that completed while older work still runs", "[cuda][poller]") {
  Reports reports;
  CompletionPoller poller;
  auto slow = std::make_shared<FakeWork>(), blocker = std::make_shared<FakeWork>(), fast = std::make_shared<FakeWork>();
  poller.Add(Fake(blocker, &reports, 0));
  poller.Add(Fake(slow, &reports, 1));
  poller.Add(Fake(fast, &reports, 2));
  fast->Complete();
  blocker->Complete();  // the poller wakes, reports 0, then finds 2 complete before 1
  reports.WaitFor(2);
  {
    std::lock_guard<std::mutex> lock(reports.mu);
    CHECK(reports.order == std::vector<int>{0, 2});
  }
  slow->Complete();
  reports.WaitFor(3);
  CHECK(reports.order == std::vector<int>{0, 2, 1});
}

TEST_CASE("CompletionPoller: a report may add more work, and destruction waits for all of it", "[cuda][poller]") {
  Reports reports;
  std::atomic<int> chained{0};
  {
    CompletionPoller poller;
    auto first = std::make_shared<FakeWork>();
    CompletionPoller::Pending p = Fake(first, &reports, 0);
    auto report = p.done;
    p.done = [&, report](std::exception_ptr failure) {
      report(failure);
      auto next = std::make_shared<FakeWork>();
      next->Complete();
      poller.Add(Fake(next, &reports, 1));  // the next invocation, started by this completion
      chained.fetch_add(1);
    };
    poller.Add(std::move(p));
    first->Complete();
    reports.WaitFor(1);
  }
  CHECK(chained.load() == 1);
  CHECK(reports.order == std::vector<int>{0, 1});
}
