// Hostile inputs through the public C API: absurd shapes and sizes, huge or cyclic graphs, names no
// string type can carry, and handles that are NULL, freed, freed twice, made up or freed by another
// thread mid-call. Each gets a clear status and message, nothing is allocated for a refused size, and
// a model loaded beforehand keeps working.
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "fuzz/fuzz_checks.h"
#include "quiver/c_api.h"
#include "support/failure_checks.h"
#include "support/sanitized_build.h"
#include "support/tiny_model.h"

using namespace quiver_test;
using quiver_fuzz::IsValidUtf8;

namespace {

constexpr uint64_t kWorkerScratchpadSlack = 64 * 1024;

// A graph of `length` nodes in a chain: data -> _plus_scalar -> _plus_scalar -> ... (MXNet 1.x layout).
std::string ChainJson(int length) {
  std::string json = R"({"nodes": [{"op": "null", "name": "data", "inputs": []})";
  for (int i = 1; i < length; ++i)
    json += R"(, {"op": "_plus_scalar", "name": "add)" + std::to_string(i) +
            R"(", "attrs": {"scalar": "1"}, "inputs": [[)" + std::to_string(i - 1) + ", 0, 0]]}";
  return json + R"(], "arg_nodes": [0], "heads": [[)" + std::to_string(length - 1) + ", 0, 0]]}";
}

// A symbol JSON with one node whose name is `name` (already JSON-escaped).
std::string NamedNodeJson(const std::string& escaped_name) {
  return R"({"nodes": [{"op": "null", "name": "data", "inputs": []},
                      {"op": "relu", "name": ")" +
         escaped_name + R"(", "inputs": [[0, 0, 0]]}], "heads": [[1, 0, 0]]})";
}

int CreateArray(std::vector<int64_t> shape, QvNDArrayHandle* out, int dtype = QV_FLOAT32) {
  return QvNDArrayCreate(shape.data(), static_cast<uint32_t>(shape.size()), QV_CPU, 0, dtype, out);
}

}  // namespace

TEST_CASE("absurd shapes are refused before anything is allocated", "[capi][hostile]") {
  LoadedModel model;
  const auto before = SettledMemoryStats();
  QvNDArrayHandle a = nullptr;
  const int64_t big = int64_t{1} << 40;
  EXPECT_QV_FAILURE(CreateArray({big, big}, &a), STATUSES(QV_ERR_OUT_OF_MEMORY), "int64");
  EXPECT_QV_FAILURE(CreateArray({INT64_MAX, 2}, &a), STATUSES(QV_ERR_OUT_OF_MEMORY), "int64");
  // 2^40 float32 elements (4 TiB): more than this machine has, refused without trying.
  EXPECT_QV_FAILURE(CreateArray({int64_t{1} << 20, int64_t{1} << 20}, &a), STATUSES(QV_ERR_OUT_OF_MEMORY),
                    "cannot allocate", "4398046511104");
  EXPECT_QV_FAILURE(CreateArray({3, -1}, &a), STATUSES(QV_ERR_SHAPE), "negative", "(3, -1)");
  EXPECT_QV_FAILURE(CreateArray({INT64_MIN}, &a), STATUSES(QV_ERR_SHAPE), "negative");
  EXPECT_QV_FAILURE(CreateArray(std::vector<int64_t>(33, 1), &a), STATUSES(QV_ERR_SHAPE), "33 dimensions");
  float word = 0;
  EXPECT_QV_FAILURE(QvNDArrayCreateFromBuffer(&word, std::vector<int64_t>{big, big}.data(), 2, QV_FLOAT32, nullptr,
                                              nullptr, &a),
                    STATUSES(QV_ERR_OUT_OF_MEMORY), "int64");
  CHECK(a == nullptr);
  CHECK(SettledMemoryStats() == before);

  SECTION("a zero-size array exists, but no invocation takes it") {
    REQUIRE(CreateArray({0, 3, 16, 16}, &a) == QV_OK);
    uint32_t n_out = 0;
    QvNDArrayHandle* outs = nullptr;
    EXPECT_QV_FAILURE(QvInvokeAsync(model.op, 1, &a, &n_out, &outs), STATUSES(QV_ERR_SHAPE), "empty dimension");
    QvNDArrayFree(a);
  }
  SECTION("data_shapes with absurd dimensions fail at creation") {
    QvCachedOpHandle op = nullptr;
    TinyParams params = MakeTinyParams();
    for (const char* shapes : {"data:(1,3,99999999999,99999999999)", "data:(99999999999,3,999999,999999)", "data:(1,3,0,4)",
                               "data:(1,3,-4,4)"}) {
      INFO("data_shapes = " << shapes);
      const int status = TryCreateCachedOp(TinyModelJson(), params, {{"data_shapes", shapes}}, 1, &op);
      CheckFailure(status, {QV_ERR_SHAPE, QV_ERR_OUT_OF_MEMORY, QV_ERR_INVALID_ARGUMENT}, {"data"});
      CHECK(op == nullptr);
    }
  }
  model.CheckStillWorks();
}

TEST_CASE(".params declaring huge sizes in a short buffer fail before allocating", "[capi][hostile]") {
  const auto before = SettledMemoryStats();
  uint32_t n = 0, n_names = 0;
  QvNDArrayHandle* arrays = nullptr;
  const char** names = nullptr;
  for (const std::vector<int64_t>& shape : std::vector<std::vector<int64_t>>{
           {int64_t{1} << 40}, {int64_t{1} << 31, int64_t{1} << 31, 4}, {INT64_MAX, INT64_MAX}}) {
    const std::string bytes = ParamsBytes("arg:w", shape, {1.0f, 2.0f, 3.0f});
    EXPECT_QV_FAILURE(QvNDArrayLoadFromBuffer(bytes.data(), bytes.size(), &n, &arrays, &n_names, &names),
                      STATUSES(QV_ERR_PARSE), "array 0", "offset");
  }
  CHECK(SettledMemoryStats() == before);
}

TEST_CASE("cyclic and out-of-order graphs are refused at load", "[capi][hostile]") {
  QvSymbolHandle sym = nullptr;
  const char* self_loop = R"({"nodes": [{"op": "null", "name": "data", "inputs": []},
      {"op": "relu", "name": "r", "inputs": [[1, 0, 0]]}], "heads": [[1, 0, 0]]})";
  const char* two_cycle = R"({"nodes": [{"op": "null", "name": "data", "inputs": []},
      {"op": "elemwise_add", "name": "a", "inputs": [[0, 0, 0], [2, 0, 0]]},
      {"op": "relu", "name": "b", "inputs": [[1, 0, 0]]}], "heads": [[2, 0, 0]]})";
  EXPECT_QV_FAILURE(QvSymbolCreateFromJSON(self_loop, &sym), STATUSES(QV_ERR_PARSE), "cycle");
  EXPECT_QV_FAILURE(QvSymbolCreateFromJSON(two_cycle, &sym), STATUSES(QV_ERR_PARSE), "cycle");
  CHECK(sym == nullptr);
}

TEST_CASE("a 100,000-node graph loads, compiles and runs", "[capi][hostile]") {
  // About 2 s here, but 40 times that under ASan: the sanitizer builds check a 20,000-node chain.
  const int kNodes = kSanitizedBuild ? 20000 : 100000;
  const auto start = std::chrono::steady_clock::now();
  QvSymbolHandle sym = nullptr;
  REQUIRE(QvSymbolCreateFromJSON(ChainJson(kNodes).c_str(), &sym) == QV_OK);
  uint32_t n = 0;
  const char** names = nullptr;
  REQUIRE(QvSymbolListInputs(sym, &n, &names) == QV_OK);
  CHECK(n == 1);
  QvCachedOpHandle op = nullptr;
  REQUIRE(QvCreateCachedOpEx(sym, 0, nullptr, nullptr, 0, nullptr, nullptr, &op, 1) == QV_OK);
  QvNDArrayHandle input = MakeRandomArray({2, 3}, 5);
  const std::vector<float> in = ReadFloats(input);
  const std::vector<float> out = RunSync(op, input);
  REQUIRE(out.size() == in.size());
  // Each node adds 1; float32 counts exactly up to 2^24.
  for (size_t i = 0; i < out.size(); ++i) CHECK(out[i] == Approx(in[i] + (kNodes - 1)).margin(0.05));
  QvNDArrayFree(input);
  QvFreeCachedOp(op);
  QvSymbolFree(sym);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  WARN(kNodes << "-node chain: load + compile + run in " << seconds << " s");
}

TEST_CASE("names with NUL bytes or malformed UTF-8 are refused; other Unicode names are kept", "[capi][hostile]") {
  QvSymbolHandle sym = nullptr;
  EXPECT_QV_FAILURE(QvSymbolCreateFromJSON(NamedNodeJson("relu\\u0000x").c_str(), &sym), STATUSES(QV_ERR_PARSE),
                    "NUL");
  EXPECT_QV_FAILURE(QvSymbolCreateFromJSON(NamedNodeJson("relu\xff\xfe").c_str(), &sym), STATUSES(QV_ERR_PARSE),
                    "UTF-8");
  CHECK(IsValidUtf8(QvGetLastError()));  // the parser quotes the bad bytes; the message stays UTF-8
  EXPECT_QV_FAILURE(QvSymbolCreateFromJSON(NamedNodeJson("half \\ud800 surrogate").c_str(), &sym),
                    STATUSES(QV_ERR_PARSE), "surrogate");
  CHECK(sym == nullptr);

  const std::string unicode = "r\xC3\xA9sum\xC3\xA9_\xE2\x82\xAC";
  REQUIRE(QvSymbolCreateFromJSON(NamedNodeJson(unicode).c_str(), &sym) == QV_OK);
  uint32_t n = 0;
  const char** names = nullptr;
  REQUIRE(QvSymbolListOutputs(sym, &n, &names) == QV_OK);
  REQUIRE(n == 1);
  CHECK(std::string(names[0]) == unicode + "_output");
  QvSymbolFree(sym);

  uint32_t n_arrays = 0, n_names = 0;
  QvNDArrayHandle* arrays = nullptr;
  const std::string params = ParamsBytes("arg:w\xC0\xAF", {2}, {1.0f, 2.0f});
  EXPECT_QV_FAILURE(QvNDArrayLoadFromBuffer(params.data(), params.size(), &n_arrays, &arrays, &n_names, &names),
                    STATUSES(QV_ERR_PARSE), "name 0", "UTF-8");

  QvCachedOpHandle op = nullptr;
  TinyParams tiny = MakeTinyParams();
  const int status = TryCreateCachedOp(TinyModelJson(), tiny, {{"device\xff", "cpu"}}, 1, &op);
  CheckFailure(status, {QV_ERR_INVALID_ARGUMENT}, {"unknown flag"});
  CHECK(IsValidUtf8(QvGetLastError()));
}

TEST_CASE("freed, double-freed and made-up handles fail cleanly", "[capi][hostile]") {
  LoadedModel model;
  const auto before = SettledMemoryStats();
  const auto inv = STATUSES(QV_ERR_INVALID_ARGUMENT);
  uint32_t n = 0;
  const char** names = nullptr;
  const int64_t* shape = nullptr;

  QvNDArrayHandle array = MakeArray({2, 3});
  REQUIRE(QvNDArrayFree(array) == QV_OK);
  EXPECT_QV_FAILURE(QvNDArrayFree(array), inv, "not live", "already freed");
  EXPECT_QV_FAILURE(QvNDArrayGetShape(array, &n, &shape), inv, "not live");
  EXPECT_QV_FAILURE(QvNDArrayWaitToRead(array), inv, "not live");

  QvSymbolHandle sym = nullptr;
  REQUIRE(QvSymbolCreateFromJSON(TinyModelJson().c_str(), &sym) == QV_OK);
  REQUIRE(QvSymbolFree(sym) == QV_OK);
  EXPECT_QV_FAILURE(QvSymbolFree(sym), inv, "symbol", "not live");
  EXPECT_QV_FAILURE(QvSymbolListInputs(sym, &n, &names), inv, "not live");

  QvCachedOpHandle op = CreateTinyModel(1);
  REQUIRE(QvFreeCachedOp(op) == QV_OK);
  EXPECT_QV_FAILURE(QvFreeCachedOp(op), inv, "cached op", "not live");
  uint32_t n_out = 0;
  QvNDArrayHandle* outs = nullptr;
  QvNDArrayHandle input = model.input;
  EXPECT_QV_FAILURE(QvInvokeAsync(op, 1, &input, &n_out, &outs), inv, "not live");

  // Values Quiver never returned, and a handle of one kind passed as another.
  EXPECT_QV_FAILURE(QvNDArrayFree(reinterpret_cast<QvNDArrayHandle>(uintptr_t{0x1234})), inv, "not live");
  EXPECT_QV_FAILURE(QvNDArrayGetShape(reinterpret_cast<QvNDArrayHandle>(model.op), &n, &shape), inv, "not live");
  EXPECT_QV_FAILURE(QvFreeCachedOp(reinterpret_cast<QvCachedOpHandle>(model.input)), inv, "not live");
  EXPECT_QV_FAILURE(QvSymbolFree(reinterpret_cast<QvSymbolHandle>(uintptr_t{0xdeadbeef0})), inv, "not live");

  CHECK(SettledMemoryStats() == before);
  model.CheckStillWorks();
}

namespace {

struct FreedBeforeCallback {
  std::atomic<bool> caller_freed{false};    // set once the caller's QvNDArrayFree has returned
  std::atomic<bool> ran_after_free{false};  // the callback saw caller_freed
  std::atomic<int> calls{0};
  std::atomic<int> shape_status{-1};
  std::atomic<int> second_free_status{-1};
};

void InspectAndFreeAgain(QvNDArrayHandle a, int, void* user) {
  auto* state = static_cast<FreedBeforeCallback*>(user);
  state->ran_after_free = state->caller_freed.load();
  uint32_t ndim = 0;
  const int64_t* shape = nullptr;
  state->shape_status = QvNDArrayGetShape(a, &ndim, &shape);
  state->second_free_status = QvNDArrayFree(a);
  state->calls.fetch_add(1);
}

}  // namespace

TEST_CASE("an OnReady callback may use its handle after the caller freed it, but not free it again",
          "[capi][hostile]") {
  QvCachedOpHandle op = CreateTinyModel(1);
  QvNDArrayHandle input = MakeRandomArray({4, 3, 64, 64}, 3);
  // The invocation normally outlasts the next two calls, so the callback runs after the caller's free.
  // A thread descheduled long enough (a loaded machine) sees the output ready first: the callback then
  // runs before the free, the attempt shows nothing, and another one is made.
  int after_free = 0;
  for (int attempt = 0; attempt < 20 && after_free == 0; ++attempt) {
    uint32_t n_out = 0;
    QvNDArrayHandle* outs = nullptr;
    REQUIRE(QvInvokeAsync(op, 1, &input, &n_out, &outs) == QV_OK);
    QvNDArrayHandle out = outs[0];
    FreedBeforeCallback state;
    REQUIRE(QvNDArrayOnReady(out, InspectAndFreeAgain, &state) == QV_OK);
    const int caller_free = QvNDArrayFree(out);
    state.caller_freed = true;
    REQUIRE(QvWaitAll() == QV_OK);
    CHECK(state.calls == 1);
    CHECK(state.shape_status == QV_OK);
    if (!state.ran_after_free) continue;
    ++after_free;
    CHECK(caller_free == QV_OK);
    CHECK(state.second_free_status == QV_ERR_INVALID_ARGUMENT);
  }
  REQUIRE(after_free == 1);
  QvNDArrayFree(input);
  FreeTinyModel(op);
}

TEST_CASE("QvInvokeAsync while another thread frees its input or its op", "[capi][hostile][concurrency]") {
  LoadedModel model;
  {
    QvCachedOpHandle warm_up = CreateTinyModel(1);  // first-use allocations are not per op
    RunSync(warm_up, model.input);
    FreeTinyModel(warm_up);
  }
  const auto before = SettledMemoryStats();
  for (const bool free_op : {false, true}) {
    INFO((free_op ? "the op is freed" : "the input is freed") << " by another thread");
    QvCachedOpHandle op = CreateTinyModel(1);
    QvNDArrayHandle input = MakeRandomArray({1, 3, 16, 16}, 11);
    std::atomic<bool> started{false};
    std::thread freer([&] {
      while (!started) std::this_thread::yield();
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      if (free_op) QvFreeCachedOp(op);
      else QvNDArrayFree(input);
    });
    int ok = 0, refused = 0;
    for (int i = 0; i < 2000 && refused == 0; ++i) {
      uint32_t n_out = 0;
      QvNDArrayHandle* outs = nullptr;
      started = true;
      const int status = QvInvokeAsync(op, 1, &input, &n_out, &outs);
      if (status == QV_OK) {
        ++ok;
        CHECK(ReadFloats(outs[0]) == model.expected);  // what ran, ran on the live input, correctly
        QvNDArrayFree(outs[0]);
      } else {
        CheckFailure(status, {QV_ERR_INVALID_ARGUMENT}, {"not live"});
        ++refused;
      }
    }
    freer.join();
    CHECK(refused == 1);
    if (free_op) QvNDArrayFree(input);
    else FreeTinyModel(op);
    WARN((free_op ? "op" : "input") << " freed after " << ok << " successful invocations");
  }
  const auto after = SettledMemoryStats();
  INFO("bytes " << before.first << " -> " << after.first << ", arrays " << before.second << " -> " << after.second);
  CHECK(after.second == before.second);
  // A worker thread running its first convolution allocates its own scratchpad (kept for the thread).
  CHECK(after.first <= before.first + kWorkerScratchpadSlack);
  model.CheckStillWorks();
}
