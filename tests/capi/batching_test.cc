// Dynamic batching through the public C API (ops with max_batch_size > 1): results equal unbatched
// calls, each request gets its own rows, shapes that cannot merge stay apart, the batch timeout and
// max_queue hold, and freeing the op runs what is queued.
#include <atomic>
#include <catch2/catch.hpp>
#include <mutex>
#include <thread>

#include "support/scheduling_helpers.h"

using namespace quiver_test;

namespace {

// One expected output per input, computed one call at a time on an op without a request queue.
struct Reference {
  std::vector<QvNDArrayHandle> inputs;
  std::vector<std::vector<float>> expected;
  float scale = 0;

  Reference(const std::vector<std::vector<int64_t>>& shapes, uint32_t seed) {
    QvCachedOpHandle plain = CreateTinyModel(1);
    for (size_t i = 0; i < shapes.size(); ++i) {
      inputs.push_back(MakeRandomArray(shapes[i], seed + static_cast<uint32_t>(i)));
      expected.push_back(RunSync(plain, inputs.back()));
      scale = std::max(scale, MaxAbs(expected.back()));
    }
    FreeTinyModel(plain);
  }
  ~Reference() { FreeArrays(inputs); }
};

// Runs `threads` threads; thread t submits inputs t, t + threads, ... one at a time and compares each
// result with its own expected rows. Checks that none was wrong or failed, naming the first problem.
void CheckFromThreads(QvCachedOpHandle op, const Reference& ref, int threads) {
  std::string first_problem;
  std::atomic<int> wrong{0};
  std::mutex mu;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (size_t i = static_cast<size_t>(t); i < ref.inputs.size(); i += static_cast<size_t>(threads)) {
        std::vector<float> got;
        std::string problem;
        try {
          const int status = Collect(Submit(op, ref.inputs[i]), &got);
          if (status != QV_OK)
            problem = std::string(StatusName(status)) + ": " + QvGetLastError();
          else if (MaxAbsDiff(got, ref.expected[i]) > 1e-5f * ref.scale)
            problem = "request " + std::to_string(i) + " differs by " + std::to_string(MaxAbsDiff(got, ref.expected[i]));
        } catch (const std::exception& e) {
          problem = e.what();
        }
        if (!problem.empty() && wrong.fetch_add(1) == 0) {
          std::lock_guard<std::mutex> lock(mu);
          first_problem = problem;
        }
      }
    });
  }
  for (auto& th : pool) th.join();
  INFO("first problem: " << first_problem);
  CHECK(wrong.load() == 0);
}

}  // namespace

TEST_CASE("64 threads x 50 batch-1 requests through a batching op match unbatched calls, each its own rows",
          "[capi][batching]") {
  const Reference ref(std::vector<std::vector<int64_t>>(64 * 50, {1, 3, 16, 16}), 7000);
  QvCachedOpHandle op =
      CreateTinyModel(1, {{"max_batch_size", "16"}, {"batch_timeout_us", "2000"}, {"max_inflight", "256"}});
  CheckFromThreads(op, ref, 64);
  FreeTinyModel(op);
}

TEST_CASE("requests of different shapes and batch sizes are batched apart and stay correct", "[capi][batching]") {
  std::vector<std::vector<int64_t>> shapes;
  const std::vector<std::vector<int64_t>> kinds = {{1, 3, 16, 16}, {2, 3, 16, 16}, {1, 3, 12, 12}, {3, 3, 8, 8}};
  for (int i = 0; i < 160; ++i) shapes.push_back(kinds[(i * 7) % kinds.size()]);
  const Reference ref(shapes, 9000);
  QvCachedOpHandle op =
      CreateTinyModel(1, {{"max_batch_size", "8"}, {"batch_timeout_us", "1000"}, {"instances", "2"}});
  CheckFromThreads(op, ref, 8);
  FreeTinyModel(op);
}

TEST_CASE("a full batch runs at once, without waiting for the timeout", "[capi][batching]") {
  const Reference ref(std::vector<std::vector<int64_t>>(8, {1, 3, 16, 16}), 500);
  // 8 requests fill the batch; were they not merged, each would wait the 60 s timeout.
  QvCachedOpHandle op = CreateTinyModel(1, {{"max_batch_size", "8"}, {"batch_timeout_us", "60000000"}});
  const auto start = Clock::now();
  CheckFromThreads(op, ref, 8);
  CHECK(MillisSince(start) < 30000);
  FreeTinyModel(op);
}

TEST_CASE("a lone request is answered after about batch_timeout_us", "[capi][batching]") {
  QvCachedOpHandle op = CreateTinyModel(1, {{"max_batch_size", "8"}, {"batch_timeout_us", "150000"}});
  QvNDArrayHandle input = MakeRandomArray({1, 3, 16, 16}, 3);
  RunSync(op, input);  // compiles the plan first
  for (int i = 0; i < 3; ++i) {
    const auto start = Clock::now();
    std::vector<float> got;
    REQUIRE(Collect(Submit(op, input), &got) == QV_OK);
    const double ms = MillisSince(start);
    INFO("answered after " << ms << " ms");
    CHECK(ms >= 149);
    CHECK(ms < 150 + 2000);  // the timeout plus one (tiny) run, with room for a loaded machine
  }
  QvNDArrayFree(input);
  FreeTinyModel(op);
}

TEST_CASE("one request more than max_queue fails fast with QV_ERR_BUSY; freeing the op runs the queue",
          "[capi][batching]") {
  QvCachedOpHandle op =
      CreateTinyModel(1, {{"max_batch_size", "64"}, {"batch_timeout_us", "60000000"}, {"max_queue", "3"}});
  QvNDArrayHandle input = MakeRandomArray({1, 3, 16, 16}, 4);
  std::vector<QvNDArrayHandle> queued;
  for (int i = 0; i < 3; ++i) queued.push_back(Submit(op, input));
  uint32_t n = 0;
  QvNDArrayHandle* outputs = nullptr;
  const auto start = Clock::now();
  REQUIRE(QvInvokeAsync(op, 1, &input, &n, &outputs) == QV_ERR_BUSY);
  CHECK(MillisSince(start) < 1000);
  CHECK(ContainsNoCase(QvGetLastError(), "max_queue (3)"));

  // A cancelled request leaves the queue at once, which makes room again.
  int cancelled = 0;
  REQUIRE(QvCancel(queued[0], &cancelled) == QV_OK);
  CHECK(cancelled == 1);
  CHECK(QvNDArrayWaitToRead(queued[0]) == QV_ERR_CANCELLED);
  QvNDArrayFree(queued[0]);
  queued.erase(queued.begin());
  int status = QV_ERR_BUSY;
  for (int tries = 0; tries < 1000 && status == QV_ERR_BUSY; ++tries) {
    status = QvInvokeAsync(op, 1, &input, &n, &outputs);
    if (status == QV_ERR_BUSY) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  REQUIRE(status == QV_OK);
  queued.push_back(outputs[0]);

  // The handle goes; the three queued requests run now rather than after the 60 s timeout.
  const std::vector<float> expected = [&] {
    QvCachedOpHandle plain = CreateTinyModel(1);
    std::vector<float> r = RunSync(plain, input);
    FreeTinyModel(plain);
    return r;
  }();
  const auto freed = Clock::now();
  FreeTinyModel(op);
  for (QvNDArrayHandle out : queued) {
    std::vector<float> got;
    REQUIRE(Collect(out, &got) == QV_OK);
    CHECK(MaxAbsDiff(got, expected) <= 1e-5f * MaxAbs(expected));
  }
  CHECK(MillisSince(freed) < 30000);
  QvNDArrayFree(input);
}

TEST_CASE("requests waiting in a batch queue hold no engine thread: other work runs meanwhile", "[capi][batching]") {
  QvCachedOpHandle batching = CreateTinyModel(1, {{"max_batch_size", "64"}, {"batch_timeout_us", "3000000"}});
  QvCachedOpHandle plain = CreateTinyModel(1);
  QvNDArrayHandle input = MakeRandomArray({1, 3, 16, 16}, 4);
  const std::vector<float> expected = RunSync(plain, input);
  // Many more waiting requests than the engine has threads (its compute budget).
  std::vector<QvNDArrayHandle> waiting;
  for (int i = 0; i < 32; ++i) waiting.push_back(Submit(batching, input));
  const auto start = Clock::now();
  std::vector<float> got = RunSync(plain, input);
  const double ms = MillisSince(start);
  INFO("the plain op answered after " << ms << " ms");
  CHECK(ms < 1500);  // well before the 3 s batch timeout lets the queue go
  CHECK(SameBits(got, expected));
  int readable = 1;
  REQUIRE(QvNDArrayCanRead(waiting[0], &readable) == QV_OK);
  CHECK(readable == 0);  // still queued
  FreeTinyModel(batching);  // the queued requests run now
  for (QvNDArrayHandle out : waiting) {
    REQUIRE(Collect(out, &got) == QV_OK);
    CHECK(MaxAbsDiff(got, expected) <= 1e-5f * MaxAbs(expected));
  }
  QvNDArrayFree(input);
  FreeTinyModel(plain);
}
