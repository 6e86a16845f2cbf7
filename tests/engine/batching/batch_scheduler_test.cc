// The request queue behind a cached op, driven through CachedOp: dependencies on inputs, failed
// inputs, chained requests and ops that are not thread-safe; and driven directly, for max_queue.
#include "batching/batch_scheduler.h"

#include <catch2/catch.hpp>
#include <condition_variable>
#include <mutex>

#include "cachedop/cached_op.h"
#include "graph/symbol_json.h"
#include "support/times_two_model.h"

using namespace qv;

namespace {

std::shared_ptr<CachedOp> TimesTwo(const std::vector<std::pair<std::string, std::string>>& flags, bool thread_safe = true) {
  return CachedOp::Create(ParseSymbolJson(quiver_test::kTimesTwoJson), {}, CachedOpOptions::Parse(flags, thread_safe));
}

NDArrayPtr Filled(const Shape& shape, float value) {
  NDArrayPtr a = NDArray::Create(shape, DType::kFloat32);
  for (int64_t i = 0; i < a->size(); ++i) a->data_as<float>()[i] = value + static_cast<float>(i);
  return a;
}

// A request of one row for a BatchScheduler driven directly.
RequestPtr OneRowRequest() {
  auto r = std::make_shared<Request>();
  r->inputs = {Filled({1, 2}, 0)};
  r->outputs = {NDArray::Create({1, 2}, DType::kFloat32)};
  r->control = std::make_shared<InvocationControl>();
  return r;
}

NDArrayPtr InvokeOne(CachedOp& op, const NDArrayPtr& input) {
  std::vector<NDArrayPtr> outs;
  op.Invoke({input}, &outs);
  return outs.at(0);
}

}  // namespace

TEST_CASE("a request whose input failed fails alone; the others of its batch are unaffected", "[batching]") {
  auto op = TimesTwo({{"max_batch_size", "3"}, {"batch_timeout_us", "50000"}});
  NDArrayPtr good1 = Filled({1, 4}, 1), good2 = Filled({1, 4}, 10), bad = Filled({1, 4}, 0);
  Engine::Get().Push([] { throw Error(Status::kParse, "the input's producer failed"); }, {}, {bad->var()});
  NDArrayPtr out1 = InvokeOne(*op, good1), out_bad = InvokeOne(*op, bad), out2 = InvokeOne(*op, good2);
  const Failure f = Engine::Get().WaitToRead(out_bad->var());
  REQUIRE(f.status == Status::kParse);
  REQUIRE(f.message == "the input's producer failed");
  REQUIRE(Engine::Get().WaitToRead(out1->var()).ok());
  REQUIRE(Engine::Get().WaitToRead(out2->var()).ok());
  for (int i = 0; i < 4; ++i) {
    REQUIRE(out1->data_as<float>()[i] == 2 * (1 + i));
    REQUIRE(out2->data_as<float>()[i] == 2 * (10 + i));
  }
}

TEST_CASE("a request reading another's output waits for it", "[batching]") {
  auto op = TimesTwo({{"max_batch_size", "4"}, {"batch_timeout_us", "1000"}});
  NDArrayPtr x = Filled({2, 3}, 1);
  NDArrayPtr y = InvokeOne(*op, x);
  NDArrayPtr z = InvokeOne(*op, y);
  REQUIRE(Engine::Get().WaitToRead(z->var()).ok());
  for (int i = 0; i < 6; ++i) REQUIRE(z->data_as<float>()[i] == 4 * (1 + i));
}

TEST_CASE("an op that is not thread-safe runs its batches one at a time, correctly", "[batching]") {
  auto op = TimesTwo({{"max_batch_size", "2"}, {"batch_timeout_us", "0"}, {"instances", "4"}}, false);
  std::vector<NDArrayPtr> ins, outs;
  for (int k = 0; k < 40; ++k) {
    ins.push_back(Filled({1, 5}, static_cast<float>(k * 10)));
    outs.push_back(InvokeOne(*op, ins.back()));
  }
  for (int k = 0; k < 40; ++k) {
    REQUIRE(Engine::Get().WaitToRead(outs[k]->var()).ok());
    for (int i = 0; i < 5; ++i) REQUIRE(outs[k]->data_as<float>()[i] == 2 * (k * 10 + i));
  }
}

TEST_CASE("static_shape forbids merging, and unbatchable models are refused at submission", "[batching]") {
  try {
    TimesTwo({{"max_batch_size", "4"}, {"static_shape", "true"}});
    FAIL("accepted");
  } catch (const Error& e) {
    REQUIRE(e.status() == Status::kInvalidArgument);
    REQUIRE(std::string(e.what()).find("static_shape") != std::string::npos);
  }
  auto op = TimesTwo({{"max_batch_size", "4"}});
  std::vector<NDArrayPtr> outs;
  try {
    op->Invoke({NDArray::Create({}, DType::kFloat32)}, &outs);  // a scalar has no batch axis
    FAIL("accepted");
  } catch (const Error& e) {
    REQUIRE(e.status() == Status::kShape);
    REQUIRE(std::string(e.what()).find("axis 0") != std::string::npos);
  }
}

TEST_CASE("a request that leaves the queue for a running batch gives its max_queue place back", "[batching]") {
  BatchingOptions options;
  options.enabled = true;
  options.batch_timeout_us = 0;
  options.max_queue = 1;
  OpStatistics statistics;
  std::mutex mu;
  std::condition_variable changed;
  bool running = false, release = false;
  BatchScheduler scheduler(
      options,
      [&](const std::vector<RequestPtr>& batch, const std::function<void()>& done) {
        {
          std::unique_lock<std::mutex> lock(mu);
          running = true;
          changed.notify_all();
          changed.wait(lock, [&] { return release; });
        }
        for (const auto& r : batch)
          if (r->control->Claim()) r->control->Finish({});
        done();
      },
      nullptr, false, statistics);
  RequestPtr first = OneRowRequest(), second = OneRowRequest();
  scheduler.Submit(first);
  {
    std::unique_lock<std::mutex> lock(mu);
    changed.wait(lock, [&] { return running; });
  }
  // The first request runs, so the queue is empty: one more fits although max_queue is 1.
  Status status = Status::kOk;
  try {
    scheduler.Submit(second);
  } catch (const Error& e) {
    status = e.status();
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    release = true;
  }
  changed.notify_all();
  REQUIRE(status == Status::kOk);
  REQUIRE(Engine::Get().WaitToRead(first->outputs[0]->var()).ok());
  REQUIRE(Engine::Get().WaitToRead(second->outputs[0]->var()).ok());
}

TEST_CASE("instances=auto runs one batch at a time on a synchronous backend, two on an asynchronous one",
          "[batching]") {
  for (const bool asynchronous : {false, true}) {
    INFO("asynchronous: " << asynchronous);
    BatchingOptions options;
    options.enabled = true;
    options.batch_timeout_us = 0;  // each request is a batch of its own (max_batch_size 1)
    OpStatistics statistics;
    std::mutex mu;
    std::condition_variable changed;
    size_t started = 0, released = 0;  // batches begun; batches the test lets end
    std::vector<std::function<void()>> ends;  // asynchronous: each started batch's end, held back
    const auto finish = [](const std::vector<RequestPtr>& batch) {
      for (const auto& r : batch)
        if (r->control->Claim()) r->control->Finish({});
    };
    BatchScheduler scheduler(
        options,
        [&](const std::vector<RequestPtr>& batch, std::function<void()> done) {
          std::unique_lock<std::mutex> lock(mu);
          const size_t index = started++;
          changed.notify_all();
          if (asynchronous) {  // ends later, on the test's thread
            ends.push_back([batch, done, finish] {
              finish(batch);
              done();
            });
            return;
          }
          changed.wait(lock, [&] { return released > index; });  // a synchronous run ends before returning
          lock.unlock();
          finish(batch);
          done();
        },
        nullptr, asynchronous, statistics);
    std::vector<RequestPtr> requests;
    for (int k = 0; k < 4; ++k) {
      const RequestPtr r = OneRowRequest();
      scheduler.Submit(r);
      requests.push_back(r);
    }
    const size_t expected = asynchronous ? 2 : 1;
    std::unique_lock<std::mutex> lock(mu);
    REQUIRE(changed.wait_for(lock, std::chrono::seconds(10), [&] { return started >= expected; }));
    // No further batch starts while these run.
    changed.wait_for(lock, std::chrono::milliseconds(100), [&] { return started > expected; });
    REQUIRE(started == expected);
    // Each batch that ends lets the next start, until all four have run.
    for (size_t index = 0; index < requests.size(); ++index) {
      REQUIRE(changed.wait_for(lock, std::chrono::seconds(10), [&] { return started > index; }));
      released = index + 1;
      changed.notify_all();
      if (asynchronous) {
        const std::function<void()> end = ends[index];
        lock.unlock();
        end();
        lock.lock();
      }
    }
    lock.unlock();
    for (const auto& r : requests) REQUIRE(Engine::Get().WaitToRead(r->outputs[0]->var()).ok());
  }
}

TEST_CASE("requests that miss a running batch wait for a whole one, not a split of their own", "[batching]") {
  BatchingOptions options;
  options.enabled = true;
  options.max_batch_size = 4;
  options.batch_timeout_us = 20000;
  OpStatistics statistics;
  std::mutex mu;
  std::condition_variable changed;
  std::vector<size_t> sizes;                // rows of each batch begun
  std::vector<std::function<void()>> ends;  // each batch's end, held back by the test
  BatchScheduler scheduler(
      options,
      [&](const std::vector<RequestPtr>& batch, std::function<void()> done) {
        std::lock_guard<std::mutex> lock(mu);
        sizes.push_back(batch.size());
        ends.push_back([batch, done] {
          for (const auto& r : batch)
            if (r->control->Claim()) r->control->Finish({});
          done();
        });
        changed.notify_all();
      },
      nullptr, /*completes_asynchronously=*/true, statistics);  // two instances: a second batch could start
  std::vector<RequestPtr> requests;
  const auto submit = [&](int count) {
    for (int k = 0; k < count; ++k) {
      const RequestPtr r = OneRowRequest();
      scheduler.Submit(r);
      requests.push_back(r);
    }
  };
  std::unique_lock<std::mutex> lock(mu, std::defer_lock);  // held while waiting, not while submitting
  submit(2);
  lock.lock();
  REQUIRE(changed.wait_for(lock, std::chrono::seconds(10), [&] { return sizes.size() == 1; }));
  REQUIRE(sizes[0] == 2);  // after the timeout, with nothing running
  lock.unlock();
  submit(1);
  lock.lock();
  // Its timeout passes, and an instance is free, but a run of its shapes goes: it waits.
  changed.wait_for(lock, std::chrono::milliseconds(150), [&] { return sizes.size() > 1; });
  REQUIRE(sizes.size() == 1);
  lock.unlock();
  submit(3);  // the running batch's clients come back: a full batch starts at once
  lock.lock();
  REQUIRE(changed.wait_for(lock, std::chrono::seconds(10), [&] { return sizes.size() == 2; }));
  REQUIRE(sizes[1] == 4);
  const std::vector<std::function<void()>> held = ends;
  lock.unlock();
  for (const auto& end : held) end();
  for (const auto& r : requests) REQUIRE(Engine::Get().WaitToRead(r->outputs[0]->var()).ok());
}
