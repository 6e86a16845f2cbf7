// Concurrency through the public C API: many threads on one cached op, many invocations in flight
// from one thread, non-blocking polls, OnReady callbacks, frees while work is in flight, zero-copy
// outputs and QvWaitAll.
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "quiver/c_api.h"
#include "support/scheduling_helpers.h"
#include "support/tiny_model.h"

using namespace quiver_test;

namespace {

constexpr int kThreads = 8;
constexpr int kInvocationsPerThread = 200;
constexpr int kInputsPerThread = 4;

// Inputs per thread (distinct seeds and batch sizes) and their outputs computed one at a time.
struct PerThreadInputs {
  std::vector<std::vector<QvNDArrayHandle>> inputs;
  std::vector<std::vector<std::vector<float>>> expected;

  explicit PerThreadInputs(QvCachedOpHandle op) : inputs(kThreads), expected(kThreads) {
    for (int t = 0; t < kThreads; ++t) {
      for (int i = 0; i < kInputsPerThread; ++i) {
        const int64_t batch = 1 + (t + i) % 3;
        inputs[t].push_back(MakeRandomArray({batch, 3, 16, 16}, static_cast<uint32_t>(1000 + t * 16 + i)));
        expected[t].push_back(RunSync(op, inputs[t].back()));
      }
    }
  }
  ~PerThreadInputs() {
    for (auto& v : inputs) FreeArrays(v);
  }
};

// Runs kThreads threads of kInvocationsPerThread invocations each; returns the mismatch and error counts.
void HammerFromThreads(QvCachedOpHandle op, const PerThreadInputs& data, int* mismatches, int* errors,
                       std::string* first_error) {
  std::atomic<int> bad{0}, failed{0};
  std::mutex mu;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < kInvocationsPerThread; ++k) {
        const int i = k % kInputsPerThread;
        QvNDArrayHandle input = data.inputs[t][i];
        uint32_t n = 0;
        QvNDArrayHandle* outputs = nullptr;
        int status = QvInvokeAsync(op, 1, &input, &n, &outputs);
        std::vector<float> got;
        if (status == QV_OK) {
          QvNDArrayHandle out = outputs[0];
          got.resize(data.expected[t][i].size());
          status = QvNDArraySyncCopyToCPU(out, got.data(), got.size() * sizeof(float));
          QvNDArrayFree(out);
        }
        if (status != QV_OK) {
          if (failed.fetch_add(1) == 0) {
            std::lock_guard<std::mutex> lock(mu);
            *first_error = std::string(StatusName(status)) + ": " + QvGetLastError();
          }
        } else if (!SameBits(got, data.expected[t][i])) {
          bad.fetch_add(1);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  *mismatches = bad.load();
  *errors = failed.load();
}

// Counts OnReady calls per output and records on which thread and with which status they ran.
struct ReadyLog {
  std::mutex mu;
  std::condition_variable cv;
  int calls = 0;
  std::vector<int> per_output;
  std::vector<int> statuses;
  std::vector<std::thread::id> threads;
  std::vector<int> readable_in_callback;
};

struct ReadyContext {
  ReadyLog* log;
  int index;
};

void OnReadyRecord(QvNDArrayHandle a, int status, void* user) {
  auto* ctx = static_cast<ReadyContext*>(user);
  int ready = -1;
  QvNDArrayCanRead(a, &ready);  // callbacks may call Qv* functions
  std::lock_guard<std::mutex> lock(ctx->log->mu);
  ctx->log->per_output[ctx->index] += 1;
  ctx->log->statuses[ctx->index] = status;
  ctx->log->threads[ctx->index] = std::this_thread::get_id();
  ctx->log->readable_in_callback[ctx->index] = ready;
  ++ctx->log->calls;
  ctx->log->cv.notify_all();
}

struct ReleaseCounter {
  std::atomic<int> calls{0};
};

void CountRelease(void* ctx) { static_cast<ReleaseCounter*>(ctx)->calls.fetch_add(1); }

// Waits up to `limit` for `counter` to reach `target`.
bool WaitForCount(const std::atomic<int>& counter, int target, std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  while (counter.load() < target && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return counter.load() >= target;
}

}  // namespace

TEST_CASE("8 threads share one thread_safe=1 cached op and get bit-identical results", "[capi][concurrency]") {
  QvCachedOpHandle op = CreateTinyModel(1);
  {
    PerThreadInputs data(op);
    int mismatches = -1, errors = -1;
    std::string first_error;
    HammerFromThreads(op, data, &mismatches, &errors, &first_error);
    INFO("first error: " << first_error);
    CHECK(errors == 0);
    CHECK(mismatches == 0);
  }
  FreeTinyModel(op);
}

TEST_CASE("8 threads share one thread_safe=0 cached op: serialized and still correct", "[capi][concurrency]") {
  QvCachedOpHandle op = CreateTinyModel(0);
  {
    PerThreadInputs data(op);
    int mismatches = -1, errors = -1;
    std::string first_error;
    HammerFromThreads(op, data, &mismatches, &errors, &first_error);
    INFO("first error: " << first_error);
    CHECK(errors == 0);
    CHECK(mismatches == 0);
  }
  FreeTinyModel(op);
}

TEST_CASE("one thread keeps 8 big invocations in flight; CanRead never blocks", "[capi][concurrency]") {
  constexpr int kInFlight = 8;
  QvCachedOpHandle op = CreateTinyModel(1);
  std::vector<QvNDArrayHandle> inputs;
  std::vector<std::vector<float>> expected;
  for (int i = 0; i < kInFlight; ++i) {
    inputs.push_back(MakeRandomArray({16, 3, 64, 64}, static_cast<uint32_t>(500 + i)));
    expected.push_back(RunSync(op, inputs.back()));  // also compiles the plan before the timed part
  }

  std::vector<QvNDArrayHandle> outputs(kInFlight, nullptr);
  for (int i = 0; i < kInFlight; ++i) {
    uint32_t n = 0;
    QvNDArrayHandle* out = nullptr;
    REQUIRE(QvInvokeAsync(op, 1, &inputs[i], &n, &out) == QV_OK);
    REQUIRE(n == 1);
    outputs[i] = out[0];
  }

  double slowest_ms = 0;
  int polls = 0, not_ready_polls = 0;
  std::vector<bool> done(kInFlight, false);
  int remaining = kInFlight;
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  while (remaining > 0 && Clock::now() < deadline) {
    for (int i = 0; i < kInFlight; ++i) {
      if (done[i]) continue;
      int ready = -1;
      const auto start = Clock::now();
      REQUIRE(QvNDArrayCanRead(outputs[i], &ready) == QV_OK);
      const double ms = MillisSince(start);
      slowest_ms = std::max(slowest_ms, ms);
      ++polls;
      REQUIRE((ready == 0 || ready == 1));
      if (ready) {
        done[i] = true;
        --remaining;
        CHECK(SameBits(ReadFloats(outputs[i]), expected[i]));
      } else {
        ++not_ready_polls;
      }
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  INFO(polls << " polls, " << not_ready_polls << " found work in flight, slowest " << slowest_ms << " ms");
  CHECK(remaining == 0);
  CHECK(slowest_ms < 50.0);
  CHECK(not_ready_polls > 0);  // the invocations really were in flight while polled
  FreeArrays(outputs);
  FreeArrays(inputs);
  FreeTinyModel(op);
}

TEST_CASE("OnReady callbacks run exactly once, with status 0, off the caller's thread when pending",
          "[capi][concurrency]") {
  constexpr int kCount = 6;
  QvCachedOpHandle op = CreateTinyModel(1);
  std::vector<QvNDArrayHandle> inputs;
  std::vector<std::vector<float>> expected;
  for (int i = 0; i < kCount; ++i) {
    inputs.push_back(MakeRandomArray({16, 3, 64, 64}, static_cast<uint32_t>(700 + i)));
    expected.push_back(RunSync(op, inputs.back()));
  }
  ReadyLog log;
  log.per_output.assign(kCount + 1, 0);
  log.statuses.assign(kCount + 1, -1);
  log.threads.assign(kCount + 1, std::thread::id());
  log.readable_in_callback.assign(kCount + 1, -1);
  std::vector<ReadyContext> contexts;
  for (int i = 0; i <= kCount; ++i) contexts.push_back({&log, i});

  std::vector<QvNDArrayHandle> outputs;
  std::vector<int> pending_at_registration(kCount, 0);
  std::vector<int> ran_during_registration(kCount, 0);
  for (int i = 0; i < kCount; ++i) {
    uint32_t n = 0;
    QvNDArrayHandle* out = nullptr;
    REQUIRE(QvInvokeAsync(op, 1, &inputs[i], &n, &out) == QV_OK);
    outputs.push_back(out[0]);
    int ready = -1;
    REQUIRE(QvNDArrayCanRead(out[0], &ready) == QV_OK);
    pending_at_registration[i] = !ready;
    REQUIRE(QvNDArrayOnReady(out[0], OnReadyRecord, &contexts[i]) == QV_OK);
    std::lock_guard<std::mutex> lock(log.mu);
    ran_during_registration[i] = log.per_output[i];
  }
  {
    std::unique_lock<std::mutex> lock(log.mu);
    REQUIRE(log.cv.wait_for(lock, std::chrono::seconds(30), [&] { return log.calls >= kCount; }));
  }
  // A late duplicate call would show up here.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const auto caller = std::this_thread::get_id();
  int off_thread = 0;
  for (int i = 0; i < kCount; ++i) {
    std::lock_guard<std::mutex> lock(log.mu);
    INFO("output " << i);
    CHECK(log.per_output[i] == 1);
    CHECK(log.statuses[i] == QV_OK);
    CHECK(log.readable_in_callback[i] == 1);
    if (log.threads[i] == caller) {
      // Only allowed when the array was already readable, and then during the OnReady call itself.
      CHECK(ran_during_registration[i] == 1);
    } else {
      ++off_thread;
    }
    if (pending_at_registration[i] && !ran_during_registration[i]) CHECK(log.threads[i] != caller);
  }
  int pending = 0;
  for (int p : pending_at_registration) pending += p;
  INFO(pending << " of " << kCount << " outputs were pending at registration");
  CHECK(pending > 0);
  CHECK(off_thread > 0);
  for (int i = 0; i < kCount; ++i) CHECK(SameBits(ReadFloats(outputs[i]), expected[i]));

  // Already readable: the callback runs at once, on this thread, before OnReady returns.
  REQUIRE(QvNDArrayWaitToRead(outputs[0]) == QV_OK);
  REQUIRE(QvNDArrayOnReady(outputs[0], OnReadyRecord, &contexts[kCount]) == QV_OK);
  {
    std::lock_guard<std::mutex> lock(log.mu);
    CHECK(log.per_output[kCount] == 1);
    CHECK(log.threads[kCount] == caller);
    CHECK(log.statuses[kCount] == QV_OK);
  }

  FreeArrays(outputs);
  FreeArrays(inputs);
  FreeTinyModel(op);
}

TEST_CASE("OnReady on an output freed before it is ready still runs once", "[capi][concurrency]") {
  QvCachedOpHandle op = CreateTinyModel(1);
  QvNDArrayHandle input = MakeRandomArray({16, 3, 64, 64}, 901);
  ReadyLog log;
  log.per_output.assign(1, 0);
  log.statuses.assign(1, -1);
  log.threads.assign(1, std::thread::id());
  log.readable_in_callback.assign(1, -1);
  ReadyContext ctx{&log, 0};
  uint32_t n = 0;
  QvNDArrayHandle* out = nullptr;
  REQUIRE(QvInvokeAsync(op, 1, &input, &n, &out) == QV_OK);
  QvNDArrayHandle output = out[0];
  REQUIRE(QvNDArrayOnReady(output, OnReadyRecord, &ctx) == QV_OK);
  REQUIRE(QvNDArrayFree(output) == QV_OK);
  {
    std::unique_lock<std::mutex> lock(log.mu);
    REQUIRE(log.cv.wait_for(lock, std::chrono::seconds(30), [&] { return log.calls >= 1; }));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::lock_guard<std::mutex> lock(log.mu);
  CHECK(log.per_output[0] == 1);
  CHECK(log.statuses[0] == QV_OK);
  QvNDArrayFree(input);
  FreeTinyModel(op);
}

TEST_CASE("freeing inputs, outputs and the cached op while work is in flight is safe", "[capi][concurrency]") {
  const std::vector<int64_t> shape = {16, 3, 64, 64};
  const size_t count = 16 * 3 * 64 * 64;
  const auto baseline = SettledMemoryStats();

  // The reference, from a separate op with the same parameters.
  std::vector<float> data = RandomFloats(count, 77);
  std::vector<float> expected;
  {
    QvCachedOpHandle ref_op = CreateTinyModel(1);
    QvNDArrayHandle ref_in = MakeArray(shape);
    REQUIRE(QvNDArraySyncCopyFromCPU(ref_in, data.data(), count * sizeof(float)) == QV_OK);
    expected = RunSync(ref_op, ref_in);
    QvNDArrayFree(ref_in);
    FreeTinyModel(ref_op);
  }

  SECTION("free the caller-memory input and the op, keep the output") {
    ReleaseCounter released;
    QvNDArrayHandle input = nullptr;
    REQUIRE(QvNDArrayCreateFromBuffer(data.data(), shape.data(), 4, QV_FLOAT32, CountRelease, &released, &input) ==
            QV_OK);
    QvCachedOpHandle op = CreateTinyModel(1);
    uint32_t n = 0;
    QvNDArrayHandle* out = nullptr;
    REQUIRE(QvInvokeAsync(op, 1, &input, &n, &out) == QV_OK);
    QvNDArrayHandle output = out[0];
    REQUIRE(QvNDArrayFree(input) == QV_OK);
    REQUIRE(QvFreeCachedOp(op) == QV_OK);
    // release(ctx) may only run once the invocation has stopped reading the buffer: whenever the count
    // is seen as 1, the output (written by that invocation) must already be readable.
    bool release_before_done = false;
    int saw_pending = 0;
    const auto deadline = Clock::now() + std::chrono::seconds(30);
    while (Clock::now() < deadline) {
      const int calls = released.calls.load();
      int ready = -1;
      REQUIRE(QvNDArrayCanRead(output, &ready) == QV_OK);
      if (calls > 0 && !ready) release_before_done = true;
      if (!ready) ++saw_pending;
      if (calls > 0 && ready) break;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    CHECK_FALSE(release_before_done);
    CHECK(WaitForCount(released.calls, 1, std::chrono::seconds(5)));
    CHECK(SameBits(ReadFloats(output), expected));
    QvNDArrayFree(output);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    CHECK(released.calls.load() == 1);
    INFO("polls that saw the work pending: " << saw_pending);
  }

  SECTION("free everything right after QvInvokeAsync") {
    ReleaseCounter released;
    for (int round = 0; round < 5; ++round) {
      QvNDArrayHandle input = nullptr;
      REQUIRE(QvNDArrayCreateFromBuffer(data.data(), shape.data(), 4, QV_FLOAT32, CountRelease, &released, &input) ==
              QV_OK);
      QvCachedOpHandle op = CreateTinyModel(round % 2);
      uint32_t n = 0;
      QvNDArrayHandle* out = nullptr;
      REQUIRE(QvInvokeAsync(op, 1, &input, &n, &out) == QV_OK);
      REQUIRE(QvNDArrayFree(out[0]) == QV_OK);
      REQUIRE(QvNDArrayFree(input) == QV_OK);
      REQUIRE(QvFreeCachedOp(op) == QV_OK);
    }
    REQUIRE(QvWaitAll() == QV_OK);
    CHECK(WaitForCount(released.calls, 5, std::chrono::seconds(5)));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    CHECK(released.calls.load() == 5);
  }

  SECTION("free a runtime-allocated input while it is being read") {
    QvCachedOpHandle op = CreateTinyModel(1);
    QvNDArrayHandle input = MakeArray(shape);
    REQUIRE(QvNDArraySyncCopyFromCPU(input, data.data(), count * sizeof(float)) == QV_OK);
    uint32_t n = 0;
    QvNDArrayHandle* out = nullptr;
    REQUIRE(QvInvokeAsync(op, 1, &input, &n, &out) == QV_OK);
    QvNDArrayHandle output = out[0];
    REQUIRE(QvNDArrayFree(input) == QV_OK);
    CHECK(SameBits(ReadFloats(output), expected));
    QvNDArrayFree(output);
    FreeTinyModel(op);
  }

  // Everything made here is gone once the work has ended.
  REQUIRE(QvWaitAll() == QV_OK);
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  while (MemoryStats().second != baseline.second && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  CHECK(MemoryStats().second == baseline.second);
}

TEST_CASE("caller-provided outputs receive results in caller memory", "[capi][concurrency]") {
  QvCachedOpHandle op = CreateTinyModel(1);
  QvNDArrayHandle input = MakeRandomArray({4, 3, 16, 16}, 31);
  const std::vector<float> expected = RunSync(op, input);

  ReleaseCounter released;
  std::vector<float> result(4 * kTinyClasses, -7.0f);
  const int64_t out_shape[2] = {4, kTinyClasses};
  QvNDArrayHandle target = nullptr;
  REQUIRE(QvNDArrayCreateFromBuffer(result.data(), out_shape, 2, QV_FLOAT32, CountRelease, &released, &target) ==
          QV_OK);
  for (int round = 0; round < 3; ++round) {
    std::fill(result.begin(), result.end(), -7.0f);
    QvNDArrayHandle provided[1] = {target};
    QvNDArrayHandle* outputs = provided;
    uint32_t n = 1;
    REQUIRE(QvInvokeAsync(op, 1, &input, &n, &outputs) == QV_OK);
    CHECK(n == 1);
    CHECK(outputs == provided);
    CHECK(provided[0] == target);
    REQUIRE(QvNDArrayWaitToRead(target) == QV_OK);
    // Read straight from our own buffer: no copy in between.
    CHECK(SameBits(result, expected));
  }
  CHECK(released.calls.load() == 0);
  REQUIRE(QvNDArrayFree(target) == QV_OK);
  CHECK(WaitForCount(released.calls, 1, std::chrono::seconds(5)));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(released.calls.load() == 1);
  QvNDArrayFree(input);
  FreeTinyModel(op);
}

TEST_CASE("QvWaitAll waits for invocations of every op and thread", "[capi][concurrency]") {
  QvCachedOpHandle op_a = CreateTinyModel(1);
  QvCachedOpHandle op_b = CreateTinyModel(0, {}, 99);
  QvNDArrayHandle input = MakeRandomArray({8, 3, 48, 48}, 41);
  const std::vector<float> expected_a = RunSync(op_a, input);
  const std::vector<float> expected_b = RunSync(op_b, input);

  std::vector<QvNDArrayHandle> outputs_a(3), outputs_b(3);
  std::thread other([&] {
    for (auto& o : outputs_b) {
      uint32_t n = 0;
      QvNDArrayHandle* out = nullptr;
      if (QvInvokeAsync(op_b, 1, &input, &n, &out) == QV_OK) o = out[0];
    }
  });
  for (auto& o : outputs_a) {
    uint32_t n = 0;
    QvNDArrayHandle* out = nullptr;
    REQUIRE(QvInvokeAsync(op_a, 1, &input, &n, &out) == QV_OK);
    o = out[0];
  }
  other.join();
  REQUIRE(QvWaitAll() == QV_OK);
  for (int i = 0; i < 3; ++i) {
    int ready = -1;
    REQUIRE(outputs_a[i] != nullptr);
    REQUIRE(outputs_b[i] != nullptr);
    CHECK((QvNDArrayCanRead(outputs_a[i], &ready) == QV_OK && ready == 1));
    CHECK((QvNDArrayCanRead(outputs_b[i], &ready) == QV_OK && ready == 1));
    CHECK(SameBits(ReadFloats(outputs_a[i]), expected_a));
    CHECK(SameBits(ReadFloats(outputs_b[i]), expected_b));
  }
  // Nothing pending: returns at once.
  const auto start = Clock::now();
  REQUIRE(QvWaitAll() == QV_OK);
  CHECK(MillisSince(start) < 50.0);
  FreeArrays(outputs_a);
  FreeArrays(outputs_b);
  QvNDArrayFree(input);
  FreeTinyModel(op_a);
  FreeTinyModel(op_b);
}

TEST_CASE("writing an input while an invocation reads it waits for that read", "[capi][concurrency]") {
  QvCachedOpHandle op = CreateTinyModel(1);
  const std::vector<int64_t> shape = {16, 3, 64, 64};
  const size_t count = 16 * 3 * 64 * 64;
  const std::vector<float> first = RandomFloats(count, 61);
  const std::vector<float> second = RandomFloats(count, 62);
  QvNDArrayHandle input = MakeArray(shape);
  REQUIRE(QvNDArraySyncCopyFromCPU(input, second.data(), count * sizeof(float)) == QV_OK);
  const std::vector<float> expected_second = RunSync(op, input);
  REQUIRE(QvNDArraySyncCopyFromCPU(input, first.data(), count * sizeof(float)) == QV_OK);
  const std::vector<float> expected_first = RunSync(op, input);
  REQUIRE_FALSE(SameBits(expected_first, expected_second));

  for (int round = 0; round < 5; ++round) {
    REQUIRE(QvNDArraySyncCopyFromCPU(input, first.data(), count * sizeof(float)) == QV_OK);
    uint32_t n = 0;
    QvNDArrayHandle* out = nullptr;
    REQUIRE(QvInvokeAsync(op, 1, &input, &n, &out) == QV_OK);
    QvNDArrayHandle output = out[0];
    // Overwrite the input at once: the copy must wait until the invocation has read it.
    REQUIRE(QvNDArraySyncCopyFromCPU(input, second.data(), count * sizeof(float)) == QV_OK);
    CHECK(SameBits(ReadFloats(output), expected_first));
    QvNDArrayFree(output);
    CHECK(SameBits(RunSync(op, input), expected_second));
  }
  QvNDArrayFree(input);
  FreeTinyModel(op);
}

TEST_CASE("max_inflight under contention: only QV_OK or QV_ERR_BUSY, busy calls never block",
          "[capi][concurrency]") {
  QvCachedOpHandle op = CreateTinyModel(1, {{"max_inflight", "2"}});
  QvNDArrayHandle input = MakeRandomArray({4, 3, 32, 32}, 71);
  const std::vector<float> expected = RunSync(op, input);
  std::atomic<int> admitted{0}, busy{0}, other{0}, wrong{0};
  std::atomic<long> slowest_busy_us{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      std::vector<float> got(expected.size());
      for (int k = 0; k < 100; ++k) {
        uint32_t n = 0;
        QvNDArrayHandle* out = nullptr;
        const auto start = Clock::now();
        const int status = QvInvokeAsync(op, 1, &input, &n, &out);
        const long us = static_cast<long>(std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count());
        if (status == QV_ERR_BUSY) {
          ++busy;
          long prev = slowest_busy_us.load();
          while (us > prev && !slowest_busy_us.compare_exchange_weak(prev, us)) {
          }
          std::this_thread::yield();
          continue;
        }
        if (status != QV_OK) {
          ++other;
          continue;
        }
        ++admitted;
        QvNDArrayHandle output = out[0];
        if (QvNDArraySyncCopyToCPU(output, got.data(), got.size() * sizeof(float)) != QV_OK || !SameBits(got, expected))
          ++wrong;
        QvNDArrayFree(output);
      }
    });
  }
  for (auto& th : threads) th.join();
  INFO(admitted.load() << " admitted, " << busy.load() << " busy (slowest " << slowest_busy_us.load() << " us)");
  CHECK(other.load() == 0);
  CHECK(wrong.load() == 0);
  CHECK(admitted.load() > 0);
  CHECK(admitted.load() + busy.load() == kThreads * 100);
  CHECK(slowest_busy_us.load() < 50000);
  // All slots come back once the work has ended.
  REQUIRE(QvWaitAll() == QV_OK);
  std::vector<QvNDArrayHandle> held;
  for (int i = 0; i < 2; ++i) {
    uint32_t n = 0;
    QvNDArrayHandle* out = nullptr;
    const int status = QvInvokeAsync(op, 1, &input, &n, &out);
    CHECK(status == QV_OK);
    if (status == QV_OK) held.push_back(out[0]);
  }
  for (QvNDArrayHandle h : held) CHECK(SameBits(ReadFloats(h), expected));
  FreeArrays(held);
  QvNDArrayFree(input);
  FreeTinyModel(op);
}

namespace {

// A pipeline driven from OnReady: each callback checks its result, frees it and submits the next one.
struct CallbackChain {
  QvCachedOpHandle op = nullptr;
  QvNDArrayHandle input = nullptr;
  const std::vector<float>* expected = nullptr;
  int remaining = 0;
  std::mutex mu;
  std::condition_variable cv;
  int completed = 0, wrong = 0, errors = 0;
  bool finished = false;
  std::thread::id caller;
  int off_caller = 0;
};

void ChainStep(QvNDArrayHandle a, int status, void* user);

bool SubmitNext(CallbackChain* chain) {
  uint32_t n = 0;
  QvNDArrayHandle* out = nullptr;
  if (QvInvokeAsync(chain->op, 1, &chain->input, &n, &out) != QV_OK) return false;
  return QvNDArrayOnReady(out[0], ChainStep, chain) == QV_OK;
}

void ChainStep(QvNDArrayHandle a, int status, void* user) {
  auto* chain = static_cast<CallbackChain*>(user);
  std::vector<float> got(chain->expected->size());
  const bool ok = status == QV_OK && QvNDArraySyncCopyToCPU(a, got.data(), got.size() * sizeof(float)) == QV_OK;
  QvNDArrayFree(a);
  bool more = false;
  {
    std::lock_guard<std::mutex> lock(chain->mu);
    ++chain->completed;
    if (std::this_thread::get_id() != chain->caller) ++chain->off_caller;
    if (!ok) ++chain->errors;
    else if (!SameBits(got, *chain->expected)) ++chain->wrong;
    more = --chain->remaining > 0;
  }
  if (more && !SubmitNext(chain)) {
    std::lock_guard<std::mutex> lock(chain->mu);
    ++chain->errors;
    more = false;
  }
  if (!more) {
    std::lock_guard<std::mutex> lock(chain->mu);
    chain->finished = true;
    chain->cv.notify_all();
  }
}

}  // namespace

TEST_CASE("OnReady callbacks may submit the next invocation and free arrays", "[capi][concurrency]") {
  QvCachedOpHandle op = CreateTinyModel(1);
  QvNDArrayHandle input = MakeRandomArray({2, 3, 32, 32}, 81);
  const std::vector<float> expected = RunSync(op, input);
  const auto baseline = SettledMemoryStats();
  CallbackChain chain;
  chain.op = op;
  chain.input = input;
  chain.expected = &expected;
  chain.remaining = 50;
  chain.caller = std::this_thread::get_id();
  REQUIRE(SubmitNext(&chain));
  {
    std::unique_lock<std::mutex> lock(chain.mu);
    REQUIRE(chain.cv.wait_for(lock, std::chrono::seconds(30), [&] { return chain.finished; }));
    CHECK(chain.completed == 50);
    CHECK(chain.errors == 0);
    CHECK(chain.wrong == 0);
    // An array already readable at registration calls back at once on the registering thread, so some
    // steps may run nested on this thread; the rest come from the callback thread.
    CHECK(chain.off_caller > 0);
  }
  CHECK(SettledMemoryStats().second == baseline.second);
  QvNDArrayFree(input);
  FreeTinyModel(op);
}
