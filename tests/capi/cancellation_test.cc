// Deadlines and cancellation through the public C API (QvInvokeAsyncEx, QvCancel), with and without
// a request queue: what ends reports QV_ERR_CANCELLED / QV_ERR_DEADLINE_EXCEEDED, nothing else changes.
#include <atomic>
#include <catch2/catch.hpp>
#include <mutex>
#include <thread>

#include "support/scheduling_helpers.h"

using namespace quiver_test;

namespace {

// What happened to one request of the load test.
struct Outcome {
  enum Kind { kPlain, kCancelled, kDeadline } kind = kPlain;
  int cancel_took_effect = 0;
  int status = -1;
  std::vector<float> values;
};

}  // namespace

TEST_CASE("1000 requests, a third cancelled or given short deadlines: the rest are bit-identical to unbatched",
          "[capi][cancellation]") {
  constexpr int kThreads = 8, kPerThread = 125, kInputs = 40;
  std::vector<QvNDArrayHandle> inputs;
  std::vector<std::vector<float>> expected;
  {
    QvCachedOpHandle plain = CreateTinyModel(1);
    for (int i = 0; i < kInputs; ++i) {
      inputs.push_back(MakeRandomArray({1, 3, 16, 16}, 100 + i));
      expected.push_back(RunSync(plain, inputs.back()));
    }
    FreeTinyModel(plain);
  }
  const auto baseline = SettledMemoryStats();
  QvCachedOpHandle op = CreateTinyModel(1, {{"max_batch_size", "8"}, {"batch_timeout_us", "500"},
                                            {"max_inflight", "2000"}, {"max_queue", "2000"}});
  std::vector<std::vector<Outcome>> outcomes(kThreads, std::vector<Outcome>(kPerThread));
  std::vector<std::thread> pool;
  std::atomic<int> submit_failures{0};
  for (int t = 0; t < kThreads; ++t) {
    pool.emplace_back([&, t] {
      std::vector<QvNDArrayHandle> outs(kPerThread, nullptr);
      for (int k = 0; k < kPerThread; ++k) {
        Outcome& o = outcomes[t][k];
        const int i = (t * kPerThread + k) % kInputs;
        QvInvokeOptions options = InvokeOptions();
        if (k % 6 == 1) {
          o.kind = Outcome::kDeadline;
          options.deadline_us = (k % 12 == 1) ? 1 : 3000;  // some surely expire, some may not
        }
        uint32_t n = 0;
        QvNDArrayHandle* got = nullptr;
        if (QvInvokeAsyncEx(op, 1, &inputs[i], &n, &got, &options) != QV_OK) {
          submit_failures.fetch_add(1);
          continue;
        }
        outs[k] = got[0];
        if (k % 12 == 4) {  // cancelled right away: most likely still queued
          o.kind = Outcome::kCancelled;
          QvCancel(outs[k], &o.cancel_took_effect);
        }
        if (k % 12 == 10) {  // an older request, which may be queued, running or finished by now
          Outcome& older = outcomes[t][k - 2];
          older.kind = Outcome::kCancelled;
          QvCancel(outs[k - 2], &older.cancel_took_effect);
        }
      }
      for (int k = 0; k < kPerThread; ++k)
        if (outs[k] != nullptr) outcomes[t][k].status = Collect(outs[k], &outcomes[t][k].values);
    });
  }
  for (auto& th : pool) th.join();
  REQUIRE(submit_failures.load() == 0);

  int plain = 0, cancelled = 0, expired = 0, delivered_anyway = 0, in_time = 0;
  for (int t = 0; t < kThreads; ++t) {
    for (int k = 0; k < kPerThread; ++k) {
      const Outcome& o = outcomes[t][k];
      const int i = (t * kPerThread + k) % kInputs;
      INFO("thread " << t << " request " << k << " kind " << o.kind << " status " << StatusName(o.status));
      switch (o.kind) {
        case Outcome::kPlain:
          ++plain;
          REQUIRE(o.status == QV_OK);
          REQUIRE(SameBits(o.values, expected[i]));
          break;
        case Outcome::kCancelled:
          if (o.cancel_took_effect) {
            ++cancelled;
            REQUIRE(o.status == QV_ERR_CANCELLED);
          } else {
            ++delivered_anyway;
            REQUIRE(o.status == QV_OK);
            REQUIRE(SameBits(o.values, expected[i]));
          }
          break;
        case Outcome::kDeadline:
          if (o.status == QV_ERR_DEADLINE_EXCEEDED) {
            ++expired;
          } else {
            ++in_time;
            REQUIRE(o.status == QV_OK);
            REQUIRE(SameBits(o.values, expected[i]));
          }
          break;
      }
    }
  }
  INFO(plain << " plain, " << cancelled << " cancelled, " << delivered_anyway << " finished before their cancel, "
             << expired << " expired, " << in_time << " within their deadline");
  CHECK(plain + cancelled + delivered_anyway + expired + in_time == 1000);
  CHECK(plain >= 660);  // one request in three is cancelled or has a deadline
  CHECK(cancelled >= 40);           // most of those cancelled right after submission
  CHECK(expired >= 70);             // the 1 us deadlines
  FreeTinyModel(op);
  FreeArrays(inputs);
  const auto after = SettledMemoryStats();
  CHECK(after.second == baseline.second - kInputs);
}

TEST_CASE("QvInvokeAsyncEx checks its options struct", "[capi][cancellation]") {
  QvCachedOpHandle op = CreateTinyModel(1);
  QvNDArrayHandle input = MakeRandomArray({1, 3, 16, 16}, 1);
  uint32_t n = 0;
  QvNDArrayHandle* outs = nullptr;

  REQUIRE(QvInvokeAsyncEx(op, 1, &input, &n, &outs, nullptr) == QV_OK);  // NULL: the defaults
  QvNDArrayFree(outs[0]);

  QvInvokeOptions small = InvokeOptions();
  small.struct_size = sizeof(size_t);
  outs = nullptr;
  REQUIRE(QvInvokeAsyncEx(op, 1, &input, &n, &outs, &small) == QV_ERR_INVALID_ARGUMENT);
  CHECK(ContainsNoCase(QvGetLastError(), "struct_size"));

  QvInvokeOptions negative = InvokeOptions(-5);
  REQUIRE(QvInvokeAsyncEx(op, 1, &input, &n, &outs, &negative) == QV_ERR_INVALID_ARGUMENT);
  CHECK(ContainsNoCase(QvGetLastError(), "deadline_us"));

  // A newer caller's larger struct: accepted while the fields this library lacks are zero.
  struct {
    QvInvokeOptions v1;
    int64_t future_field;
  } newer;
  std::memset(&newer, 0, sizeof newer);
  newer.v1.struct_size = sizeof newer;
  REQUIRE(QvInvokeAsyncEx(op, 1, &input, &n, &outs, &newer.v1) == QV_OK);
  QvNDArrayFree(outs[0]);
  outs = nullptr;
  newer.future_field = 1;
  REQUIRE(QvInvokeAsyncEx(op, 1, &input, &n, &outs, &newer.v1) == QV_ERR_INVALID_ARGUMENT);
  CHECK(ContainsNoCase(QvGetLastError(), "does not know"));

  int cancelled = -1;
  REQUIRE(QvCancel(nullptr, &cancelled) == QV_ERR_INVALID_ARGUMENT);
  REQUIRE(QvCancel(input, nullptr) == QV_OK);  // never written by an invocation: nothing to do
  QvNDArrayFree(input);
  FreeTinyModel(op);
}

TEST_CASE("without a request queue: cancel before start, after the end, and a passed deadline", "[capi][cancellation]") {
  // thread_safe = 0 runs invocations one after another: the later ones wait behind the first. The first
  // normally outlasts the next three submissions and the cancel; a caller descheduled that long (a loaded
  // machine) finds `to_cancel` already started, the attempt shows nothing, and another one is made.
  QvCachedOpHandle op = CreateTinyModel(0);
  QvNDArrayHandle big = MakeRandomArray({8, 3, 96, 96}, 2), small = MakeRandomArray({1, 3, 16, 16}, 3);
  const QvInvokeOptions short_deadline = InvokeOptions(1);
  bool cancelled_before_start = false;
  for (int attempt = 0; attempt < 20 && !cancelled_before_start; ++attempt) {
    QvNDArrayHandle first = Submit(op, big);
    QvNDArrayHandle to_cancel = Submit(op, small);
    QvNDArrayHandle expires = Submit(op, small, &short_deadline);
    QvNDArrayHandle last = Submit(op, small);
    int cancelled = 0;
    REQUIRE(QvCancel(to_cancel, &cancelled) == QV_OK);
    if (cancelled == 1) {
      cancelled_before_start = true;
      CHECK(QvNDArrayWaitToRead(to_cancel) == QV_ERR_CANCELLED);
      CHECK(ContainsNoCase(QvGetLastError(), "cancelled"));
    } else {
      CHECK(QvNDArrayWaitToRead(to_cancel) == QV_OK);  // it had started: the cancel changed nothing
    }
    CHECK(QvNDArrayWaitToRead(expires) == QV_ERR_DEADLINE_EXCEEDED);
    CHECK(ContainsNoCase(QvGetLastError(), "deadline (1 us"));
    CHECK(QvNDArrayWaitToRead(first) == QV_OK);
    CHECK(QvNDArrayWaitToRead(last) == QV_OK);
    REQUIRE(QvCancel(last, &cancelled) == QV_OK);  // finished: nothing changes
    CHECK(cancelled == 0);
    CHECK(QvNDArrayWaitToRead(last) == QV_OK);
    for (QvNDArrayHandle h : {first, to_cancel, expires, last}) QvNDArrayFree(h);
  }
  REQUIRE(cancelled_before_start);
  QvNDArrayFree(big);
  QvNDArrayFree(small);
  FreeTinyModel(op);
}

TEST_CASE("a queued request ends at its deadline or its cancel, not at the batch timeout", "[capi][cancellation]") {
  QvCachedOpHandle op = CreateTinyModel(1, {{"max_batch_size", "8"}, {"batch_timeout_us", "60000000"}});
  QvNDArrayHandle input = MakeRandomArray({1, 3, 16, 16}, 4);
  const QvInvokeOptions deadline = InvokeOptions(100000);  // 100 ms
  auto start = Clock::now();
  QvNDArrayHandle out = Submit(op, input, &deadline);
  CHECK(QvNDArrayWaitToRead(out) == QV_ERR_DEADLINE_EXCEEDED);
  double ms = MillisSince(start);
  CHECK(ms >= 99);
  CHECK(ms < 100 + 5000);
  QvNDArrayFree(out);

  // Cancelled from another thread while this one waits; OnReady hears QV_ERR_CANCELLED too.
  out = Submit(op, input);
  std::atomic<int> heard{-1};
  REQUIRE(QvNDArrayOnReady(
              out, [](QvNDArrayHandle, int status, void* user) { static_cast<std::atomic<int>*>(user)->store(status); },
              &heard) == QV_OK);
  start = Clock::now();
  std::thread canceller([out] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    int cancelled = 0;
    QvCancel(out, &cancelled);
  });
  CHECK(QvNDArrayWaitToRead(out) == QV_ERR_CANCELLED);
  canceller.join();
  CHECK(MillisSince(start) < 5000);
  QvWaitAll();
  CHECK(heard.load() == QV_ERR_CANCELLED);
  QvNDArrayFree(out);
  QvNDArrayFree(input);
  FreeTinyModel(op);
}

TEST_CASE("a higher-priority request overtakes queued ones", "[capi][cancellation]") {
  // One run at a time, one request per run: the queue's order is the order of completion.
  QvCachedOpHandle op =
      CreateTinyModel(1, {{"max_batch_size", "1"}, {"batch_timeout_us", "0"}, {"instances", "1"}});
  QvNDArrayHandle big = MakeRandomArray({8, 3, 128, 128}, 5), small = MakeRandomArray({1, 3, 16, 16}, 6);
  RunSync(op, small);
  RunSync(op, big);  // plans compiled
  struct Log {
    std::mutex mu;
    std::vector<int> order;
  };
  struct Tag {
    Log* log;
    int id;
  };
  // The big request normally outlasts the five submissions and the callbacks' registration. A caller
  // descheduled that long (a loaded machine) finds it done: the others then ran in submission order, or
  // a callback registered on a finished array logged in registration order; the attempt shows nothing,
  // and another one is made.
  bool overlapped = false;
  for (int attempt = 0; attempt < 20 && !overlapped; ++attempt) {
    Log log;
    std::vector<Tag> tags;
    tags.reserve(6);
    std::vector<QvNDArrayHandle> outs;
    outs.push_back(Submit(op, big));  // occupies the one instance while the others queue
    for (int id = 1; id <= 5; ++id) {
      const QvInvokeOptions o = InvokeOptions(0, id == 5 ? 10 : 0);
      outs.push_back(Submit(op, small, &o));
    }
    for (int id = 0; id <= 5; ++id) {
      tags.push_back({&log, id});
      REQUIRE(QvNDArrayOnReady(
                  outs[id],
                  [](QvNDArrayHandle, int, void* user) {
                    auto* tag = static_cast<Tag*>(user);
                    std::lock_guard<std::mutex> lock(tag->log->mu);
                    tag->log->order.push_back(tag->id);
                  },
                  &tags.back()) == QV_OK);
    }
    int big_done = 1;
    REQUIRE(QvNDArrayCanRead(outs[0], &big_done) == QV_OK);
    QvWaitAll();
    REQUIRE(log.order.size() == 6);
    if (!big_done) {
      overlapped = true;
      const auto pos = [&](int id) { return std::find(log.order.begin(), log.order.end(), id) - log.order.begin(); };
      INFO("completion order: " << log.order[0] << log.order[1] << log.order[2] << log.order[3] << log.order[4]
                                << log.order[5]);
      CHECK(pos(5) < pos(2));  // submitted after 1..4, finished before all but (possibly) the first of them
      CHECK(pos(5) < pos(3));
      CHECK(pos(5) < pos(4));
    }
    for (QvNDArrayHandle h : outs) QvNDArrayFree(h);
  }
  REQUIRE(overlapped);
  QvNDArrayFree(big);
  QvNDArrayFree(small);
  FreeTinyModel(op);
}
