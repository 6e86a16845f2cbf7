#include <catch2/catch.hpp>

#include "common/error.h"
#include "graph/bound_graph.h"
#include "graph/symbol_json.h"

using namespace qv;

namespace {

NDArrayPtr Zeros(const Shape& shape) {
  NDArrayPtr a = NDArray::Create(shape, DType::kFloat32);
  for (int64_t i = 0; i < a->size(); ++i) a->data_as<float>()[i] = 0.f;
  return a;
}

// Two convolutions on data, c2 listed after c1; the head is chosen per test.
std::string TwoBranches(int head) {
  return R"json({
    "nodes": [
      {"op": "null", "name": "data", "inputs": []},
      {"op": "null", "name": "w1", "inputs": []},
      {"op": "Convolution", "name": "c1", "attrs": {"kernel": "(1, 1)", "num_filter": "2", "no_bias": "True"},
       "inputs": [[0, 0, 0], [1, 0, 0]]},
      {"op": "null", "name": "w2", "inputs": []},
      {"op": "Convolution", "name": "c2", "attrs": {"kernel": "(1, 1)", "num_filter": "2", "no_bias": "True"},
       "inputs": [[0, 0, 0], [3, 0, 0]]}
    ],
    "arg_nodes": [0, 1, 3],
    "heads": [[)json" + std::to_string(head) + R"json(, 0, 0]]
  })json";
}

}  // namespace

TEST_CASE("BindParameters checks only the nodes the outputs reach", "[graph][bind]") {
  // A symbol whose head is an internal node (as MXNet's get_internals gives) leaves c2 unreachable:
  // its weight is neither needed nor an error, and w1 alone binds.
  const BoundGraph g = BindParameters(ParseSymbolJson(TwoBranches(2)), {{"arg:w1", Zeros({2, 3, 1, 1})}});
  REQUIRE(g.input_names == std::vector<std::string>{"data"});
  REQUIRE(g.output_names == std::vector<std::string>{"c1_output"});
  REQUIRE(g.constants.size() == 1);
}

TEST_CASE("BindParameters names a missing parameter of a reachable node", "[graph][bind]") {
  try {
    BindParameters(ParseSymbolJson(TwoBranches(4)), {{"arg:w1", Zeros({2, 3, 1, 1})}});
    FAIL("no error");
  } catch (const Error& e) {
    REQUIRE(e.status() == Status::kNotFound);
    REQUIRE_THAT(e.what(), Catch::Contains("missing parameter 'w2'") && Catch::Contains("node 'c2'"));
  }
}
