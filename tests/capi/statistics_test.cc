// QvCachedOpGetStats: every request counted once by how it ended, exactly, under concurrent clients
// that cancel some requests and give others deadlines that pass; queue waits, run times, batch sizes
// and padding, busy refusals and plans compiled.
#include <atomic>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <thread>

#include "support/scheduling_helpers.h"

using namespace quiver_test;

namespace {

nlohmann::json Stats(QvCachedOpHandle op) {
  const char* text = nullptr;
  REQUIRE(QvCachedOpGetStats(op, &text) == QV_OK);
  return nlohmann::json::parse(text);
}

}  // namespace

TEST_CASE("statistics count each request once by how it ended, under cancels and deadlines", "[capi][stats]") {
  QvCachedOpHandle op = CreateTinyModel(1, {{"max_batch_size", "8"}, {"batch_timeout_us", "2000"}});
  QvNDArrayHandle input = MakeRandomArray({1, 3, 16, 16}, 11);
  constexpr int kThreads = 8, kPerThread = 60;
  std::atomic<int> ok{0}, cancelled{0}, expired{0}, other{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < kThreads; ++t) {
    clients.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const int kind = (t + i) % 3;  // 0: plain, 1: cancelled at once, 2: a deadline that has passed
        const QvInvokeOptions options = InvokeOptions(kind == 2 ? 1 : 0);
        QvNDArrayHandle out = Submit(op, input, &options);
        if (kind == 1) {
          int was = 0;
          QvCancel(out, &was);
        }
        switch (QvNDArrayWaitToRead(out)) {
          case QV_OK: ok.fetch_add(1); break;
          case QV_ERR_CANCELLED: cancelled.fetch_add(1); break;
          case QV_ERR_DEADLINE_EXCEEDED: expired.fetch_add(1); break;
          default: other.fetch_add(1); break;
        }
        QvNDArrayFree(out);
      }
    });
  }
  for (auto& c : clients) c.join();
  const nlohmann::json s = Stats(op);
  INFO(s.dump(2));
  const auto& r = s["requests"];
  CHECK(r["admitted"] == kThreads * kPerThread);
  CHECK(r["completed"] == ok.load());
  CHECK(r["cancelled"] == cancelled.load());
  CHECK(r["deadline_exceeded"] == expired.load());
  CHECK(r["failed"] == other.load());
  CHECK(other.load() == 0);
  CHECK(cancelled.load() > 0);
  CHECK(expired.load() > 0);
  CHECK(r["rejected_busy"] == 0);
  // Every request that reached a batch waited in the queue first; each batch ran once.
  CHECK(s["queue_wait_us"]["count"].get<uint64_t>() >= static_cast<uint64_t>(ok.load()));
  CHECK(s["run_us"]["count"] == s["batches"]["count"]);
  uint64_t batches = 0, rows = 0;
  for (const auto& [size, count] : s["batches"]["sizes"].items()) {
    const uint64_t n = std::stoull(size);
    CHECK(n >= 1);
    CHECK(n <= 8);
    batches += count.get<uint64_t>();
    rows += n * count.get<uint64_t>();
  }
  CHECK(batches == s["batches"]["count"]);
  CHECK(rows == s["batches"]["rows"]);
  CHECK(rows >= static_cast<uint64_t>(ok.load()));
  CHECK(s["run_us"]["p50"].get<uint64_t>() <= s["run_us"]["p99"].get<uint64_t>());
  CHECK(s["plans"]["compiled"].get<uint64_t>() >= 1);
  CHECK(s["plans"]["cached"] == s["plans"]["compiled"]);
  CHECK(s["plans"]["evicted"] == 0);
  QvNDArrayFree(input);
  FreeTinyModel(op);
}

TEST_CASE("statistics of an op without a queue, and busy refusals of one with a full queue", "[capi][stats]") {
  QvCachedOpHandle plain = CreateTinyModel(1);
  QvNDArrayHandle input = MakeRandomArray({2, 3, 16, 16}, 12);
  for (int i = 0; i < 5; ++i) RunSync(plain, input);
  nlohmann::json s = Stats(plain);
  CHECK(s["requests"]["admitted"] == 5);
  CHECK(s["requests"]["completed"] == 5);
  CHECK(s["run_us"]["count"] == 5);
  CHECK(s["queue_wait_us"]["count"] == 0);
  CHECK(s["batches"]["count"] == 0);
  CHECK(s["plans"]["compiled"] == 1);
  FreeTinyModel(plain);

  QvCachedOpHandle queued = CreateTinyModel(1, {{"max_batch_size", "8"}, {"batch_timeout_us", "10000000"},
                                                {"max_queue", "1"}});
  QvNDArrayHandle first = Submit(queued, input);
  uint32_t n = 0;
  QvNDArrayHandle* outs = nullptr;
  CHECK(QvInvokeAsync(queued, 1, &input, &n, &outs) == QV_ERR_BUSY);
  s = Stats(queued);
  CHECK(s["requests"]["admitted"] == 1);
  CHECK(s["requests"]["rejected_busy"] == 1);
  CHECK(s["requests"]["completed"] == 0);
  FreeTinyModel(queued);  // the queued request runs now
  CHECK(QvNDArrayWaitToRead(first) == QV_OK);
  QvNDArrayFree(first);
  QvNDArrayFree(input);
  CHECK(QvCachedOpGetStats(nullptr, nullptr) == QV_ERR_INVALID_ARGUMENT);
}
