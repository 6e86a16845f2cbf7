#include "batching/batch_runner.h"

#include <catch2/catch.hpp>

#include "graph/bound_graph.h"
#include "graph/symbol_json.h"
#include "support/times_two_model.h"

using namespace qv;

namespace {

// Requests of `rows` x 4 whose ends are recorded, with outputs of the same shape.
RequestPtr MakeRequest(int64_t rows, float value, std::vector<Failure>* ends) {
  auto r = std::make_shared<Request>();
  r->rows = rows;
  NDArrayPtr in = NDArray::Create({rows, 4}, DType::kFloat32);
  for (int64_t i = 0; i < rows * 4; ++i) in->data_as<float>()[i] = value + static_cast<float>(i);
  r->inputs = {in};
  r->outputs = {NDArray::Create({rows, 4}, DType::kFloat32)};
  r->group = {{4}};
  r->control = std::make_shared<InvocationControl>();
  r->control->SetFinisher([ends](const Failure& f) { ends->push_back(f); });
  return r;
}

}  // namespace

TEST_CASE("a batch gives each request its own rows and skips those that ended", "[batching]") {
  const BoundGraph graph = BindParameters(ParseSymbolJson(quiver_test::kTimesTwoJson), {});
  const Backend& cpu = FindBackend(Device{});
  const auto store = cpu.NewConstantStore();
  std::vector<TensorType> compiled;
  const PlanSource plans = [&](const std::vector<TensorType>& types) {
    compiled = types;
    return std::shared_ptr<const Plan>(Plan::Compile(graph, {}, types, cpu, Device{}, Precision::kFloat32, *store));
  };
  BatchingOptions options;
  options.max_batch_size = 8;
  std::vector<Failure> ends_a, ends_b, ends_c;
  auto a = MakeRequest(1, 10, &ends_a), b = MakeRequest(2, 100, &ends_b), c = MakeRequest(1, 1000, &ends_c);
  REQUIRE(c->control->Cancel());
  OpStatistics statistics;
  BatchRunner(options, plans, Device{}, statistics).Run({a, b, c}, [] {});
  CHECK(statistics.Read().batch_sizes == std::map<int64_t, uint64_t>{{3, 1}});
  CHECK(statistics.Read().padding_rows == 1);
  REQUIRE(compiled.size() == 1);
  REQUIRE(compiled[0].shape == Shape{4, 4});  // 3 live rows padded to 4
  REQUIRE(ends_a.size() == 1);
  REQUIRE(ends_a[0].ok());
  REQUIRE(ends_b.size() == 1);
  REQUIRE(ends_b[0].ok());
  REQUIRE(ends_c.size() == 1);
  REQUIRE(ends_c[0].status == Status::kCancelled);
  for (int64_t i = 0; i < 4; ++i) REQUIRE(a->outputs[0]->data_as<float>()[i] == 2 * (10 + i));
  for (int64_t i = 0; i < 8; ++i) REQUIRE(b->outputs[0]->data_as<float>()[i] == 2 * (100 + i));
  for (int64_t i = 0; i < 4; ++i) REQUIRE(c->outputs[0]->data_as<float>()[i] == 0);  // never written
}

TEST_CASE("a failing batch fails exactly its live requests with the batch's error", "[batching]") {
  BatchingOptions options;
  options.max_batch_size = 4;
  OpStatistics statistics;
  std::vector<Failure> ends_a, ends_b, ends_c;
  auto a = MakeRequest(1, 0, &ends_a), b = MakeRequest(1, 0, &ends_b), c = MakeRequest(1, 0, &ends_c);
  REQUIRE(b->control->Cancel());
  BatchRunner(options, [](const std::vector<TensorType>&) -> std::shared_ptr<const Plan> {
    throw Error(Status::kOutOfMemory, "no room for the batch");
  }, Device{}, statistics).Run({a, b}, [] {});
  REQUIRE(ends_a.size() == 1);
  REQUIRE(ends_a[0].status == Status::kOutOfMemory);
  REQUIRE(ends_a[0].message == "no room for the batch");
  REQUIRE(ends_b.size() == 1);
  REQUIRE(ends_b[0].status == Status::kCancelled);
  REQUIRE(ends_c.empty());  // not in the batch
  REQUIRE(c->control->Check().ok());
}

TEST_CASE("padding rows are zero even in a reused buffer", "[batching]") {
  // transpose mixes rows: output row 0 is column 0 of every input row, padding rows included.
  const BoundGraph graph = BindParameters(ParseSymbolJson(R"json({
    "nodes": [
      {"op": "null", "name": "data", "inputs": []},
      {"op": "transpose", "name": "t", "inputs": [[0, 0, 0]]}
    ],
    "heads": [[1, 0, 0]]
  })json"), {});
  const Backend& cpu = FindBackend(Device{});
  const auto store = cpu.NewConstantStore();
  OpStatistics statistics;
  BatchingOptions options;
  options.max_batch_size = 4;
  BatchRunner runner(
      options,
      [&](const std::vector<TensorType>& types) {
        return std::shared_ptr<const Plan>(Plan::Compile(graph, {}, types, cpu, Device{}, Precision::kFloat32, *store));
      },
      Device{}, statistics);
  std::vector<Failure> ends;
  // A full batch leaves non-zero rows in the pooled 4 x 4 input; then 3 rows are padded to 4.
  runner.Run({MakeRequest(4, 7, &ends)}, [] {});
  auto a = MakeRequest(1, 10, &ends), b = MakeRequest(2, 100, &ends);
  runner.Run({a, b}, [] {});
  REQUIRE(ends.size() == 3);
  for (const auto& f : ends) REQUIRE(f.ok());
  // a's row of the 4 x 4 output: column 0 of rows a, b0, b1 and the padding row.
  const float* got = a->outputs[0]->data_as<float>();
  CHECK(got[0] == 10);
  CHECK(got[1] == 100);
  CHECK(got[2] == 104);
  CHECK(got[3] == 0);
}

TEST_CASE("the first batch of a row shape compiles every padded row count; a failing one fails no batch",
          "[batching]") {
  const BoundGraph graph = BindParameters(ParseSymbolJson(quiver_test::kTimesTwoJson), {});
  const Backend& cpu = FindBackend(Device{});
  const auto store = cpu.NewConstantStore();
  std::vector<Shape> asked;
  const PlanSource plans = [&](const std::vector<TensorType>& types) {
    asked.push_back(types[0].shape);
    if (types[0].shape[0] == 8) throw Error(Status::kOutOfMemory, "no room for 8 rows");
    return std::shared_ptr<const Plan>(Plan::Compile(graph, {}, types, cpu, Device{}, Precision::kFloat32, *store));
  };
  OpStatistics statistics;
  BatchingOptions options;
  options.max_batch_size = 6;  // row counts 1, 2, 4 and 6
  BatchRunner runner(options, plans, Device{}, statistics);
  std::vector<Failure> ends;
  runner.Run({MakeRequest(1, 0, &ends)}, [] {});
  REQUIRE(asked == std::vector<Shape>{{1, 4}, {2, 4}, {4, 4}, {6, 4}, {1, 4}});
  asked.clear();
  runner.Run({MakeRequest(2, 0, &ends), MakeRequest(1, 0, &ends)}, [] {});
  REQUIRE(asked == std::vector<Shape>{{4, 4}});  // compiled already: only the batch's own plan is asked for
  REQUIRE(ends.size() == 3);
  for (const auto& end : ends) REQUIRE(end.ok());

  // A row count that fails to compile ahead fails no batch, only the ones that need it.
  options.max_batch_size = 8;
  BatchRunner wider(options, plans, Device{}, statistics);
  asked.clear();
  ends.clear();
  wider.Run({MakeRequest(3, 0, &ends)}, [] {});
  REQUIRE(asked == std::vector<Shape>{{1, 4}, {2, 4}, {4, 4}, {8, 4}, {4, 4}});
  REQUIRE(ends.size() == 1);
  REQUIRE(ends[0].ok());
  ends.clear();
  wider.Run({MakeRequest(3, 0, &ends), MakeRequest(3, 0, &ends)}, [] {});
  REQUIRE(ends.size() == 2);
  REQUIRE(ends[0].status == Status::kOutOfMemory);
}
