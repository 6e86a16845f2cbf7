#include "scheduler/engine.h"

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace qv;
using namespace std::chrono_literals;

namespace {

// Work that blocks until released, to hold a variable busy for as long as a test needs.
struct Gate {
  std::mutex mu;
  std::condition_variable cv;
  bool open = false;
  void Open() {
    {
      std::lock_guard<std::mutex> lock(mu);
      open = true;
    }
    cv.notify_all();
  }
  void Wait() {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return open; });
  }
};

}  // namespace

TEST_CASE("writes to one variable run in push order", "[scheduler]") {
  Engine& engine = Engine::Get();
  VarPtr v = engine.NewVar();
  std::vector<int> order;
  for (int i = 0; i < 100; ++i) engine.Push([&order, i] { order.push_back(i); }, {}, {v});
  REQUIRE(engine.WaitToRead(v).ok());
  REQUIRE(order.size() == 100);
  for (int i = 0; i < 100; ++i) REQUIRE(order[i] == i);
}

TEST_CASE("a read waits for the earlier write and a later write waits for the read", "[scheduler]") {
  Engine& engine = Engine::Get();
  VarPtr a = engine.NewVar(), b = engine.NewVar();
  int value = 0, seen = -1;
  Gate gate;
  engine.Push([&] { gate.Wait(); value = 1; }, {}, {a});
  engine.Push([&] { seen = value; }, {a}, {b});
  engine.Push([&] { value = 2; }, {}, {a});
  REQUIRE_FALSE(engine.CanRead(a));
  REQUIRE_FALSE(engine.CanRead(b));
  gate.Open();
  REQUIRE(engine.WaitToRead(b).ok());
  REQUIRE(engine.WaitToRead(a).ok());
  REQUIRE(seen == 1);
  REQUIRE(value == 2);
}

TEST_CASE("reads of one variable run concurrently", "[scheduler]") {
  Engine& engine = Engine::Get();
  if (engine.num_workers() < 2) {
    WARN("not run: needs 2 engine workers, have " << engine.num_workers());
    return;
  }
  VarPtr shared = engine.NewVar(), out1 = engine.NewVar(), out2 = engine.NewVar();
  // Each reader waits (bounded) until both are inside: that only happens if they run at once.
  std::atomic<int> inside{0};
  std::atomic<bool> met{false};
  auto reader = [&] {
    ++inside;
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (inside.load() < 2 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
    if (inside.load() == 2) met = true;
  };
  engine.Push(reader, {shared}, {out1});
  engine.Push(reader, {shared}, {out2});
  engine.WaitToRead(out1);
  engine.WaitToRead(out2);
  REQUIRE(met);
}

TEST_CASE("CanRead never blocks while work is running", "[scheduler]") {
  Engine& engine = Engine::Get();
  VarPtr v = engine.NewVar();
  Gate gate;
  engine.Push([&] { gate.Wait(); }, {}, {v});
  for (int i = 0; i < 1000; ++i) {
    auto start = std::chrono::steady_clock::now();
    REQUIRE_FALSE(engine.CanRead(v));
    REQUIRE(std::chrono::steady_clock::now() - start < 100ms);
  }
  gate.Open();
  REQUIRE(engine.WaitToRead(v).ok());
  REQUIRE(engine.CanRead(v));
}

TEST_CASE("a failure is reported by exactly the variables it writes and their dependents", "[scheduler]") {
  Engine& engine = Engine::Get();
  VarPtr failed = engine.NewVar(), fine = engine.NewVar(), downstream = engine.NewVar();
  engine.Push([] { throw Error(Status::kShape, "node 'x': bad shape"); }, {}, {failed});
  engine.Push([] {}, {}, {fine});
  bool ran = false;
  engine.Push([&] { ran = true; }, {failed}, {downstream});

  Failure f = engine.WaitToRead(failed);
  REQUIRE(f.status == Status::kShape);
  REQUIRE(f.message == "node 'x': bad shape");
  REQUIRE(engine.WaitToRead(fine).ok());
  REQUIRE(engine.WaitToRead(downstream).status == Status::kShape);
  REQUIRE_FALSE(ran);

  // A later successful write clears the failure.
  engine.Push([] {}, {}, {failed});
  REQUIRE(engine.WaitToRead(failed).ok());
}

TEST_CASE("OnReady runs once: inline when ready, on the callback thread otherwise", "[scheduler]") {
  Engine& engine = Engine::Get();
  VarPtr v = engine.NewVar();
  const auto caller = std::this_thread::get_id();
  std::thread::id inline_thread;
  engine.OnReady(v, [&](const Failure& f) {
    REQUIRE(f.ok());
    inline_thread = std::this_thread::get_id();
  });
  REQUIRE(inline_thread == caller);

  Gate gate;
  std::atomic<int> calls{0};
  std::atomic<Status> status{Status::kOk};
  engine.Push([&] { gate.Wait(); throw Error(Status::kInternal, "boom"); }, {}, {v});
  engine.OnReady(v, [&](const Failure& f) {
    status = f.status;
    ++calls;
  });
  REQUIRE(calls == 0);
  gate.Open();
  engine.WaitToRead(v);
  for (int i = 0; i < 2000 && calls == 0; ++i) std::this_thread::sleep_for(1ms);
  REQUIRE(calls == 1);
  REQUIRE(status == Status::kInternal);
}

TEST_CASE("WaitAll inside a ready callback is refused; WaitToRead there waits for the workers", "[scheduler]") {
  Engine& engine = Engine::Get();
  VarPtr first = engine.NewVar(), second = engine.NewVar();
  Gate gate_first, gate_second, refused;
  engine.Push([&] { gate_first.Wait(); }, {}, {first});
  engine.Push([&] { gate_second.Wait(); }, {}, {second});
  std::mutex mu;
  std::condition_variable cv;
  bool ran = false;
  Failure pending_wait{Status::kInternal, "not waited"};
  std::string wait_all;
  engine.OnReady(first, [&](const Failure&) {
    try {
      engine.WaitAll();  // waits for this callback too: it could never return
    } catch (const Error& e) {
      wait_all = e.what();
    }
    refused.Open();
    pending_wait = engine.WaitToRead(second);  // a worker ends `second` once the test opens its gate
    std::lock_guard<std::mutex> lock(mu);
    ran = true;
    cv.notify_all();
  });
  gate_first.Open();
  refused.Wait();
  gate_second.Open();
  {
    std::unique_lock<std::mutex> lock(mu);
    REQUIRE(cv.wait_for(lock, 10s, [&] { return ran; }));
  }
  CHECK(wait_all.find("inside a ready callback") != std::string::npos);
  CHECK(pending_wait.ok());
  engine.WaitAll();
}

TEST_CASE("ready callbacks registered from ready callbacks run one after another, not nested", "[scheduler]") {
  Engine& engine = Engine::Get();
  VarPtr ready = engine.NewVar();
  constexpr int kChain = 200000;  // nested, this many frames would overflow the stack
  int depth = 0, deepest = 0, calls = 0;
  std::function<void(const Failure&)> link = [&](const Failure&) {
    ++depth;
    deepest = std::max(deepest, depth);
    if (++calls < kChain) engine.OnReady(ready, link);
    --depth;
  };
  engine.OnReady(ready, link);
  CHECK(calls == kChain);
  CHECK(deepest == 1);
}

TEST_CASE("WaitAll waits for everything pushed", "[scheduler]") {
  Engine& engine = Engine::Get();
  std::atomic<int> done{0};
  std::vector<VarPtr> vars;
  for (int i = 0; i < 50; ++i) {
    vars.push_back(engine.NewVar());
    engine.Push([&] { std::this_thread::sleep_for(1ms); ++done; }, {}, {vars.back()});
  }
  engine.WaitAll();
  REQUIRE(done == 50);
}

TEST_CASE("many threads pushing chains on shared variables stay ordered", "[scheduler]") {
  Engine& engine = Engine::Get();
  constexpr int kThreads = 8, kPerThread = 200;
  VarPtr counter_var = engine.NewVar();
  long counter = 0;  // only written by work that writes counter_var, so never concurrently
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < kPerThread; ++i) engine.Push([&] { ++counter; }, {}, {counter_var});
    });
  for (auto& t : threads) t.join();
  REQUIRE(engine.WaitToRead(counter_var).ok());
  REQUIRE(counter == kThreads * kPerThread);
}

TEST_CASE("PushAsync work starts once its reads are written and ends when done is called", "[scheduler]") {
  Engine& engine = Engine::Get();
  VarPtr in = engine.NewVar(), out = engine.NewVar();
  Gate gate;
  engine.Push([&] { gate.Wait(); }, {}, {in});
  std::atomic<bool> started{false};
  Engine::Completion later;
  std::mutex mu;
  engine.PushAsync(
      [&](const Engine::Completion& done) {
        std::lock_guard<std::mutex> lock(mu);
        started = true;
        later = done;
      },
      {in}, {out});
  std::this_thread::sleep_for(20ms);
  REQUIRE_FALSE(started.load());  // waits for the write to `in`
  gate.Open();
  REQUIRE(engine.WaitToRead(in).ok());
  for (int i = 0; i < 1000 && !started.load(); ++i) std::this_thread::sleep_for(1ms);
  REQUIRE(started.load());
  REQUIRE_FALSE(engine.CanRead(out));  // started, not done
  Engine::Completion done;
  {
    std::lock_guard<std::mutex> lock(mu);
    done = later;
  }
  done(Failure{Status::kCancelled, "stopped"});
  done(Failure{});  // only the first call counts
  const Failure f = engine.WaitToRead(out);
  REQUIRE(f.status == Status::kCancelled);
  REQUIRE(f.message == "stopped");
  engine.WaitAll();
}

TEST_CASE("PushAsync work is skipped when a read failed, and a throw ends it", "[scheduler]") {
  Engine& engine = Engine::Get();
  VarPtr bad = engine.NewVar(), out1 = engine.NewVar(), out2 = engine.NewVar();
  engine.Push([] { throw Error(Status::kShape, "bad input"); }, {}, {bad});
  bool ran = false;
  engine.PushAsync([&](const Engine::Completion&) { ran = true; }, {bad}, {out1});
  REQUIRE(engine.WaitToRead(out1).status == Status::kShape);
  REQUIRE_FALSE(ran);
  engine.PushAsync([](const Engine::Completion&) { throw Error(Status::kBusy, "full"); }, {}, {out2});
  REQUIRE(engine.WaitToRead(out2).status == Status::kBusy);
}

TEST_CASE("PushAsync work may call done before it returns, and a later write waits for it", "[scheduler]") {
  Engine& engine = Engine::Get();
  VarPtr v = engine.NewVar();
  std::vector<int> order;
  engine.PushAsync(
      [&](const Engine::Completion& done) {
        order.push_back(1);
        done(Failure{});
      },
      {}, {v});
  engine.Push([&] { order.push_back(2); }, {}, {v});
  REQUIRE(engine.WaitToRead(v).ok());
  REQUIRE(order == std::vector<int>{1, 2});
}
