#include "cachedop/plan_cache.h"

#include <catch2/catch.hpp>

#include "graph/bound_graph.h"
#include "graph/symbol_json.h"
#include "support/times_two_model.h"

using namespace qv;

namespace {

std::shared_ptr<const Plan> CompileRows(int64_t rows) {
  static const BoundGraph graph = BindParameters(ParseSymbolJson(quiver_test::kTimesTwoJson), {});
  const Backend& cpu = FindBackend(Device{});
  static const auto store = cpu.NewConstantStore();
  return Plan::Compile(graph, {}, {{{rows, 4}, DType::kFloat32}}, cpu, Device{}, Precision::kFloat32, *store);
}

std::vector<Shape> Key(int64_t rows) { return {{rows, 4}}; }

}  // namespace

TEST_CASE("the plan cache drops its least recently used plans past its capacity", "[cachedop]") {
  PlanCache cache(2);
  for (int64_t rows : {1, 2, 3}) cache.Insert(Key(rows), CompileRows(rows));
  CHECK(cache.size() == 2);
  CHECK(cache.evictions() == 1);
  CHECK(cache.Find(Key(1)) == nullptr);
  REQUIRE(cache.Find(Key(2)) != nullptr);  // now more recent than 3
  cache.Insert(Key(4), CompileRows(4));
  CHECK(cache.Find(Key(3)) == nullptr);
  CHECK(cache.Find(Key(2)) != nullptr);
  CHECK(cache.Find(Key(4)) != nullptr);
  CHECK(cache.evictions() == 2);
}

TEST_CASE("the plan cache never drops a plan an invocation holds", "[cachedop]") {
  PlanCache cache(1);
  cache.Insert(Key(1), CompileRows(1));
  std::shared_ptr<const Plan> running = cache.Find(Key(1));
  cache.Insert(Key(2), CompileRows(2));
  CHECK(cache.size() == 2);  // over capacity while the first is held
  CHECK(cache.Find(Key(1)) == running);
  running.reset();
  cache.Insert(Key(3), CompileRows(3));
  CHECK(cache.size() == 1);
  CHECK(cache.Find(Key(3)) != nullptr);
  CHECK(cache.evictions() == 2);
  CHECK(cache.AnyKey() == Key(3));
}
