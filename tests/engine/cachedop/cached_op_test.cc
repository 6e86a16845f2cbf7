#include "cachedop/cached_op.h"

#include <oneapi/dnnl/dnnl_threadpool.h>

#include <catch2/catch.hpp>
#include <future>

#include "graph/symbol_json.h"

using namespace qv;

namespace {

const char* kConvRelu = R"json({
  "nodes": [
    {"op": "null", "name": "data", "inputs": []},
    {"op": "null", "name": "w", "inputs": []},
    {"op": "Convolution", "name": "conv", "attrs": {"kernel": "(3, 3)", "num_filter": "8", "no_bias": "True"},
     "inputs": [[0, 0, 0], [1, 0, 0]]},
    {"op": "Activation", "name": "relu", "attrs": {"act_type": "relu"}, "inputs": [[2, 0, 0]]}
  ],
  "heads": [[3, 0, 0]]
})json";

}  // namespace

TEST_CASE("compiling a plan leaves the caller's oneDNN thread count alone", "[cachedop]") {
  NDArrayPtr w = NDArray::Create({8, 3, 3, 3}, DType::kFloat32);
  auto op = CachedOp::Create(ParseSymbolJson(kConvRelu), {{"w", w}}, CachedOpOptions::Parse({}, true));
  dnnl_threadpool_interop_set_max_concurrency(3);
  std::vector<NDArrayPtr> outputs;
  op->Invoke({NDArray::Create({1, 3, 10, 10}, DType::kFloat32)}, &outputs);
  int threads = 0;
  dnnl_threadpool_interop_get_max_concurrency(&threads);
  REQUIRE(threads == 3);
  REQUIRE(Engine::Get().WaitToRead(outputs[0]->var()).ok());
  REQUIRE(outputs[0]->shape() == Shape{1, 8, 8, 8});
}

TEST_CASE("static_shape fixes the shapes of the first invocation", "[cachedop]") {
  NDArrayPtr w = NDArray::Create({8, 3, 3, 3}, DType::kFloat32);
  auto op = CachedOp::Create(ParseSymbolJson(kConvRelu), {{"w", w}},
                             CachedOpOptions::Parse({{"static_shape", "true"}}, true));
  std::vector<NDArrayPtr> first, second;
  op->Invoke({NDArray::Create({1, 3, 10, 10}, DType::kFloat32)}, &first);
  try {
    op->Invoke({NDArray::Create({2, 3, 10, 10}, DType::kFloat32)}, &second);
    FAIL("a second shape was accepted");
  } catch (const Error& e) {
    REQUIRE(e.status() == Status::kShape);
    REQUIRE(std::string(e.what()).find("(2, 3, 10, 10)") != std::string::npos);
  }
  REQUIRE(Engine::Get().WaitToRead(first[0]->var()).ok());
}

TEST_CASE("an invocation over max_inflight is refused before its shape is compiled", "[cachedop]") {
  NDArrayPtr w = NDArray::Create({8, 3, 3, 3}, DType::kFloat32);
  auto op = CachedOp::Create(ParseSymbolJson(kConvRelu), {{"w", w}},
                             CachedOpOptions::Parse({{"max_inflight", "1"}}, true));
  // An input whose producer is held: the invocation reading it stays in flight until it is let go.
  NDArrayPtr held = NDArray::Create({1, 3, 10, 10}, DType::kFloat32);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  Engine::Get().Push([released] { released.wait(); }, {}, {held->var()});
  std::vector<NDArrayPtr> first, second;
  op->Invoke({held}, &first);
  const size_t plans = op->statistics().plans_cached;
  try {
    op->Invoke({NDArray::Create({2, 3, 12, 12}, DType::kFloat32)}, &second);
    FAIL("a second invocation was admitted");
  } catch (const Error& e) {
    CHECK(e.status() == Status::kBusy);
  }
  CHECK(op->statistics().plans_cached == plans);  // nothing compiled for the refused shape
  CHECK(second.empty());                           // nor any output allocated
  release.set_value();
  REQUIRE(Engine::Get().WaitToRead(first[0]->var()).ok());
  op->Invoke({NDArray::Create({2, 3, 12, 12}, DType::kFloat32)}, &second);  // admitted again
  REQUIRE(Engine::Get().WaitToRead(second[0]->var()).ok());
  CHECK(op->statistics().plans_cached == plans + 1);
}

TEST_CASE("flag cuda_graphs: true, false or required on any device, anything else refused", "[cachedop]") {
  const auto recording = [](const std::vector<std::pair<std::string, std::string>>& flags) {
    return CachedOpOptions::Parse(flags, true).backend.step_recording;
  };
  CHECK(recording({}) == StepRecording::kPreferred);
  CHECK(recording({{"cuda_graphs", "false"}}) == StepRecording::kOff);
  CHECK(recording({{"cuda_graphs", "0"}}) == StepRecording::kOff);
  CHECK(recording({{"cuda_graphs", "1"}, {"device", "cpu(0)"}}) == StepRecording::kPreferred);
  CHECK(recording({{"cuda_graphs", "True"}}) == StepRecording::kPreferred);
  CHECK(recording({{"cuda_graphs", "required"}}) == StepRecording::kRequired);
  for (const char* bad : {"sometimes", "Required", ""}) {
    INFO("cuda_graphs = '" << bad << "'");
    try {
      CachedOpOptions::Parse({{"cuda_graphs", bad}}, true);
      FAIL("a bad value was accepted");
    } catch (const Error& e) {
      CHECK(e.status() == Status::kInvalidArgument);
      CHECK_THAT(e.what(), Catch::Contains("cuda_graphs") && Catch::Contains("'" + std::string(bad) + "'") &&
                               Catch::Contains("required"));
    }
  }
}

TEST_CASE("flag cuda_graphs = required is accepted and ignored on the CPU", "[cachedop]") {
  NDArrayPtr w = NDArray::Create({8, 3, 3, 3}, DType::kFloat32);
  auto op = CachedOp::Create(ParseSymbolJson(kConvRelu), {{"w", w}},
                             CachedOpOptions::Parse({{"cuda_graphs", "required"}}, true));
  std::vector<NDArrayPtr> out;
  op->Invoke({NDArray::Create({1, 3, 10, 10}, DType::kFloat32)}, &out);
  REQUIRE(Engine::Get().WaitToRead(out[0]->var()).ok());
}
