// quiver/quiver.hpp, the header-only C++ API: the same results as the C API bit for bit, failures thrown
// with their status and message, asynchronous invocations with polling, waiting, callbacks and
// cancellation, one op shared by threads, and every handle released (the runtime's array count returns
// to where it started).
#include "quiver/quiver.hpp"

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

#include "support/fixtures.h"
#include "support/tiny_model.h"

namespace {

uint64_t ArraysAlive() {
  uint64_t bytes = 0, arrays = 0;
  REQUIRE(QvGetMemoryStats(&bytes, &arrays) == QV_OK);
  return arrays;
}

// The tiny model's random parameters as C++ arrays, by name.
struct Params {
  std::vector<std::pair<std::string, quiver::NDArray>> arrays;
  std::map<std::string, const quiver::NDArray*> Map() const {
    std::map<std::string, const quiver::NDArray*> m;
    for (const auto& [name, array] : arrays) m[name] = &array;
    return m;
  }
};

// The C API tests' tiny-model parameters (quiver_test::MakeTinyParams), copied into C++ arrays.
Params TinyParams() {
  quiver_test::TinyParams c = quiver_test::MakeTinyParams();
  const char** names = c.names();
  Params p;
  for (uint32_t i = 0; i < c.size(); ++i) {
    uint32_t ndim = 0;
    const int64_t* dims = nullptr;
    REQUIRE(QvNDArrayGetShape(c.arrays()[i], &ndim, &dims) == QV_OK);
    const std::vector<int64_t> shape(dims, dims + ndim);
    size_t n = 1;
    for (int64_t d : shape) n *= static_cast<size_t>(d);
    std::vector<float> values(n);
    REQUIRE(QvNDArraySyncCopyToCPU(c.arrays()[i], values.data(), n * sizeof(float)) == QV_OK);
    p.arrays.emplace_back(names[i], quiver::NDArray::FromVector(values, shape));
  }
  return p;
}

std::vector<float> Input(uint32_t seed) {
  return quiver_test::RandomFloats(2 * 3 * 16 * 16, seed, -1.f, 1.f);
}

}  // namespace

TEST_CASE("C++ API: a tiny model gives what the C API gives, bit for bit, and frees everything",
          "[capi][cpp]") {
  const uint64_t alive_before = ArraysAlive();
  {
    const Params params = TinyParams();
    const quiver::CachedOp op = quiver::CachedOp::FromJson(quiver_test::TinyModelJson(), params.Map());
    CHECK(op.input_names() == std::vector<std::string>{"data"});
    CHECK(op.output_names().size() == 1);
    CHECK(op.precision() == "float32");

    const std::vector<float> pixels = Input(7);
    const quiver::NDArray input = quiver::NDArray::FromVector(pixels, {2, 3, 16, 16});
    CHECK(input.shape() == std::vector<int64_t>{2, 3, 16, 16});
    CHECK(input.dtype() == QV_FLOAT32);
    CHECK(input.device().type == QV_CPU);
    CHECK(input.nbytes() == pixels.size() * sizeof(float));
    const std::vector<float> got = op.Invoke({&input})[0].ToVector<float>();

    // The same through the C API.
    QvCachedOpHandle c_op = quiver_test::CreateTinyModel(1);
    QvNDArrayHandle c_in = nullptr;
    const int64_t shape[] = {2, 3, 16, 16};
    REQUIRE(QvNDArrayCreate(shape, 4, QV_CPU, 0, QV_FLOAT32, &c_in) == QV_OK);
    REQUIRE(QvNDArraySyncCopyFromCPU(c_in, pixels.data(), pixels.size() * sizeof(float)) == QV_OK);
    uint32_t n = 0;
    QvNDArrayHandle* out = nullptr;
    REQUIRE(QvInvokeAsync(c_op, 1, &c_in, &n, &out) == QV_OK);
    std::vector<float> want(got.size());
    QvNDArrayHandle c_out = out[0];
    REQUIRE(QvNDArraySyncCopyToCPU(c_out, want.data(), want.size() * sizeof(float)) == QV_OK);
    QvNDArrayFree(c_out);
    QvNDArrayFree(c_in);
    quiver_test::FreeTinyModel(c_op);
    REQUIRE(got.size() == want.size());
    CHECK(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)) == 0);
  }
  QvWaitAll();
  CHECK(ArraysAlive() == alive_before);
}

TEST_CASE("C++ API: failures are thrown with their status and the runtime's message", "[capi][cpp]") {
  const Params params = TinyParams();
  try {
    quiver::CachedOp::FromJson("{not json", params.Map());
    FAIL("bad JSON was accepted");
  } catch (const quiver::Error& e) {
    CHECK(e.status() == QV_ERR_PARSE);
    CHECK(std::string(e.what()).size() > 0);
  }
  try {
    quiver::CachedOp::FromJson(quiver_test::TinyModelJson(), params.Map(), {{"no_such_flag", "1"}});
    FAIL("an unknown flag was accepted");
  } catch (const quiver::Error& e) {
    CHECK(e.status() == QV_ERR_INVALID_ARGUMENT);
    CHECK(std::string(e.what()).find("no_such_flag") != std::string::npos);
  }
  const quiver::CachedOp op = quiver::CachedOp::FromJson(quiver_test::TinyModelJson(), params.Map());
  const quiver::NDArray wrong = quiver::NDArray::Zeros({2, 5, 16, 16});
  try {
    op.Submit({&wrong});
    FAIL("a wrong shape was accepted");
  } catch (const quiver::Error& e) {
    CHECK(e.status() == QV_ERR_SHAPE);
  }
  const quiver::NDArray ints = quiver::NDArray::FromVector(std::vector<int32_t>{1, 2}, {2});
  CHECK_THROWS_AS(ints.ToVector<float>(), quiver::Error);
  CHECK(ints.ToVector<int32_t>() == std::vector<int32_t>{1, 2});
  CHECK_THROWS_AS(quiver::CachedOp::Load("/nonexistent/model"), quiver::Error);
}

TEST_CASE("C++ API: Submit returns at once; Ready, Wait, OnReady and Cancel", "[capi][cpp]") {
  const Params params = TinyParams();
  const quiver::NDArray input = quiver::NDArray::FromVector(Input(3), {2, 3, 16, 16});
  const quiver::CachedOp op = quiver::CachedOp::FromJson(quiver_test::TinyModelJson(), params.Map());
  const std::vector<float> want = op.Invoke({&input})[0].ToVector<float>();

  quiver::Invocation invocation = op.Submit({&input});
  std::mutex mu;
  std::condition_variable called;
  int heard = -1;
  invocation.OnReady([&](int status, const std::string&) {
    std::lock_guard<std::mutex> lock(mu);
    heard = status;
    called.notify_all();
  });
  {
    std::unique_lock<std::mutex> lock(mu);
    REQUIRE(called.wait_for(lock, std::chrono::seconds(30), [&] { return heard != -1; }));
  }
  CHECK(heard == QV_OK);
  CHECK(invocation.Ready());
  CHECK_FALSE(invocation.Cancel());  // ended already
  CHECK(invocation.Get()[0].ToVector<float>() == want);

  // A queued request (a long batch timeout keeps it waiting) is cancelled, and says so when waited for.
  const quiver::CachedOp batching = quiver::CachedOp::FromJson(
      quiver_test::TinyModelJson(), params.Map(), {{"max_batch_size", "8"}, {"batch_timeout_us", "10000000"}});
  quiver::Invocation queued = batching.Submit({&input});
  CHECK_FALSE(queued.Ready());
  CHECK(queued.Cancel());
  try {
    queued.Wait();
    FAIL("a cancelled invocation succeeded");
  } catch (const quiver::Error& e) {
    CHECK(e.status() == QV_ERR_CANCELLED);
  }
  // A deadline that has passed before the run can start.
  quiver::InvokeOptions late;
  late.deadline_us = 1;
  quiver::Invocation expired = batching.Submit({&input}, late);
  try {
    expired.Wait();
    FAIL("an expired invocation succeeded");
  } catch (const quiver::Error& e) {
    CHECK(e.status() == QV_ERR_DEADLINE_EXCEEDED);
  }
}

TEST_CASE("C++ API: 8 threads share one op and match the sequential results bit for bit", "[capi][cpp]") {
  const Params params = TinyParams();
  const quiver::CachedOp op = quiver::CachedOp::FromJson(quiver_test::TinyModelJson(), params.Map());
  std::vector<std::vector<float>> inputs, want;
  for (uint32_t t = 0; t < 8; ++t) {
    inputs.push_back(Input(100 + t));
    const quiver::NDArray a = quiver::NDArray::FromVector(inputs.back(), {2, 3, 16, 16});
    want.push_back(op.Invoke({&a})[0].ToVector<float>());
  }
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (size_t t = 0; t < inputs.size(); ++t) {
    threads.emplace_back([&, t] {
      const quiver::NDArray a = quiver::NDArray::FromVector(inputs[t], {2, 3, 16, 16});
      for (int i = 0; i < 25; ++i)
        if (op.Invoke({&a})[0].ToVector<float>() != want[t]) wrong.fetch_add(1);
    });
  }
  for (auto& th : threads) th.join();
  CHECK(wrong.load() == 0);
}

TEST_CASE("C++ API: CachedOp::Load reads a model's files and matches MXNet", "[capi][cpp][oracle]") {
  const std::string prefix = quiver_test::FixturesDir() + "/tiny";
  if (quiver_test::LoadManifest().is_null()) {
    if (quiver_test::FixturesRequired()) FAIL("fixtures missing in " << quiver_test::FixturesDir());
    WARN("not run: no MXNet fixtures in " << quiver_test::FixturesDir() << " (run scripts/make_fixtures.sh)");
    return;
  }
  const std::vector<float> input = quiver_test::ReadF32(prefix + "-in-2x3x16x16.f32");
  const std::vector<float> mxnet = quiver_test::ReadF32(prefix + "-out-2x3x16x16.f32");
  const quiver::CachedOp op = quiver::CachedOp::Load(prefix, 0, {{"device", "cpu"}});
  const quiver::NDArray in = quiver::NDArray::FromVector(input, {2, 3, 16, 16});
  const std::vector<float> got = op.Invoke({&in})[0].ToVector<float>();
  REQUIRE(got.size() == mxnet.size());
  float scale = 0, worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    scale = std::max(scale, std::fabs(mxnet[i]));
    worst = std::max(worst, std::fabs(got[i] - mxnet[i]));
  }
  CHECK(worst <= 1e-4f * scale);
}
