#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>

#include "backends/backend.h"
#include "graph/bound_graph.h"
#include "graph/graph_check.h"
#include "graph/symbol_json.h"
#include "ops/int8_hints.h"

using namespace qv;

namespace {

// The CPU backend's rules (oneDNN: any element-wise post-op and a residual sum into a convolution, only
// a plain ReLU into batch normalisation).
const FusionRules& CpuRules() { return FindBackend(Device{}).fusions(); }

class NoFusions : public FusionRules {
 public:
  bool FusesPostOp(const Node&, const PostOp&) const override { return false; }
  bool FusesSum(const Node&) const override { return false; }
};

std::vector<PostOp> Ops(std::initializer_list<PostOp> ops) { return ops; }
std::vector<std::string> Names(const std::vector<FusedNode>& fused) {
  std::vector<std::string> names;
  for (const FusedNode& f : fused) names.push_back(f.op + " " + f.name);
  return names;
}
const PostOp kRelu{PostOp::kRelu};
const PostOp kSum{PostOp::kSum};

NDArrayPtr Filled(const Shape& shape, float value) {
  NDArrayPtr a = NDArray::Create(shape, DType::kFloat32);
  for (int64_t i = 0; i < a->size(); ++i) a->data_as<float>()[i] = value;
  return a;
}

// data -> conv -> BatchNorm -> relu -> conv2 (+ the first relu) -> relu -> Dropout
const char* kResidualBlock = R"json({
  "nodes": [
    {"op": "null", "name": "data", "inputs": []},
    {"op": "null", "name": "w1", "inputs": []},
    {"op": "Convolution", "name": "c1", "attrs": {"kernel": "(3, 3)", "pad": "(1, 1)", "num_filter": "4", "no_bias": "True"}, "inputs": [[0, 0, 0], [1, 0, 0]]},
    {"op": "null", "name": "g", "inputs": []},
    {"op": "null", "name": "b", "inputs": []},
    {"op": "null", "name": "m", "inputs": []},
    {"op": "null", "name": "v", "inputs": []},
    {"op": "BatchNorm", "name": "bn", "attrs": {"fix_gamma": "False"}, "inputs": [[2, 0, 0], [3, 0, 0], [4, 0, 0], [5, 0, 0], [6, 0, 0]]},
    {"op": "Activation", "name": "r1", "attrs": {"act_type": "relu"}, "inputs": [[7, 0, 0]]},
    {"op": "null", "name": "w2", "inputs": []},
    {"op": "Convolution", "name": "c2", "attrs": {"kernel": "(1, 1)", "num_filter": "4", "no_bias": "True"}, "inputs": [[8, 0, 0], [9, 0, 0]]},
    {"op": "elemwise_add", "name": "add", "inputs": [[10, 0, 0], [8, 0, 0]]},
    {"op": "Activation", "name": "r2", "attrs": {"act_type": "relu"}, "inputs": [[11, 0, 0]]},
    {"op": "Dropout", "name": "drop", "attrs": {"p": "0.5"}, "inputs": [[12, 0, 0]]}
  ],
  "arg_nodes": [0, 1, 3, 4, 5, 6, 9],
  "heads": [[13, 0, 0]]
})json";

}  // namespace

TEST_CASE("passes fold BatchNorm and fuse ReLU and the residual add into convolutions", "[graph][passes]") {
  const Graph graph = ParseSymbolJson(kResidualBlock);
  CheckGraphOperators(graph);
  std::map<std::string, NDArrayPtr> params = {
      {"w1", Filled({4, 3, 3, 3}, 0.5f)}, {"arg:g", Filled({4}, 2.f)}, {"arg:b", Filled({4}, 1.f)},
      {"aux:m", Filled({4}, 0.25f)},      {"aux:v", Filled({4}, 3.f)},  {"w2", Filled({4, 4, 1, 1}, 1.f)},
  };
  BoundGraph g = BindParameters(graph, params);
  REQUIRE(g.input_names == std::vector<std::string>{"data"});
  Optimize(g, CpuRules());

  std::vector<std::string> ops;
  for (int id : TopologicalOrder(g.graph))
    if (!g.graph.nodes[id].is_variable()) ops.push_back(g.graph.nodes[id].op);
  REQUIRE(ops == std::vector<std::string>{"Convolution", "Convolution"});

  const Node& c1 = g.graph.nodes[2];
  REQUIRE(c1.post_ops == Ops({kRelu}));
  REQUIRE(c1.inputs.size() == 3);  // data, folded weight, folded bias
  // w' = w * gamma / sqrt(var + eps); b' = (0 - mean) * gamma / sqrt(var + eps) + beta
  const float scale = static_cast<float>(2.0 / std::sqrt(3.0 + 1e-3));
  REQUIRE(g.constants.at(c1.inputs[1].node)->data_as<float>()[0] == Approx(0.5f * scale));
  REQUIRE(g.constants.at(c1.inputs[2].node)->data_as<float>()[0] == Approx(-0.25f * scale + 1.f));

  const Node& c2 = g.graph.nodes[10];
  REQUIRE(c2.post_ops == Ops({kSum, kRelu}));
  // What tools report as fused: the file's nodes, in the order they were merged.
  REQUIRE(Names(c1.fused) == std::vector<std::string>{"BatchNorm bn", "Activation r1"});
  REQUIRE(Names(c2.fused) == std::vector<std::string>{"elemwise_add add", "Activation r2"});
  REQUIRE(c2.inputs.back() == NodeEntry{2, 0});  // the residual is the fused first convolution
  REQUIRE(g.graph.outputs[0] == NodeEntry{10, 0});
  // The unfolded originals are released.
  REQUIRE(g.constants.count(1) == 0);
  REQUIRE(g.constants.count(3) == 0);
}

namespace {

// The error binding `params` to `graph` throws; fails the test if it binds.
Error BindError(const Graph& graph, const std::map<std::string, NDArrayPtr>& params) {
  try {
    BindParameters(graph, params);
  } catch (const Error& e) {
    return e;
  }
  FAIL("expected BindParameters to fail");
  return Error(Status::kInternal, "not reached: FAIL stops the test");
}

}  // namespace

TEST_CASE("a missing or mis-shaped parameter is named at binding", "[graph][passes]") {
  const Graph graph = ParseSymbolJson(kResidualBlock);
  std::map<std::string, NDArrayPtr> params = {
      {"w1", Filled({4, 3, 3, 3}, 0.5f)}, {"g", Filled({4}, 2.f)}, {"b", Filled({4}, 1.f)},
      {"m", Filled({4}, 0.25f)},          {"v", Filled({4}, 3.f)},
  };
  const Error missing = BindError(graph, params);
  REQUIRE(missing.status() == Status::kNotFound);
  REQUIRE(std::string(missing.what()).find("'w2'") != std::string::npos);
  REQUIRE(std::string(missing.what()).find("'c2'") != std::string::npos);
  params["w2"] = Filled({5, 4, 1, 1}, 1.f);
  const Error misshaped = BindError(graph, params);
  REQUIRE(misshaped.status() == Status::kShape);
  REQUIRE(std::string(misshaped.what()).find("'c2'") != std::string::npos);
}

namespace {

// data -> depthwise conv -> BatchNorm -> clip(0, 6) -> conv -> LeakyReLU(0.1) -> conv -> clip(-1, 1)
//      -> BatchNorm (not foldable: its input is no convolution) -> clip(0, 6)
const char* kMobileBlock = R"json({
  "nodes": [
    {"op": "null", "name": "data", "inputs": []},
    {"op": "null", "name": "dw_weight", "inputs": []},
    {"op": "Convolution", "name": "dw", "attrs": {"kernel": "(3, 3)", "pad": "(1, 1)", "num_filter": "4", "num_group": "4", "no_bias": "True"}, "inputs": [[0, 0, 0], [1, 0, 0]]},
    {"op": "null", "name": "g", "inputs": []},
    {"op": "null", "name": "b", "inputs": []},
    {"op": "null", "name": "m", "inputs": []},
    {"op": "null", "name": "v", "inputs": []},
    {"op": "BatchNorm", "name": "bn", "attrs": {"fix_gamma": "False"}, "inputs": [[2, 0, 0], [3, 0, 0], [4, 0, 0], [5, 0, 0], [6, 0, 0]]},
    {"op": "clip", "name": "relu6", "attrs": {"a_min": "0", "a_max": "6"}, "inputs": [[7, 0, 0]]},
    {"op": "null", "name": "pw_weight", "inputs": []},
    {"op": "Convolution", "name": "pw", "attrs": {"kernel": "(1, 1)", "num_filter": "4", "no_bias": "True"}, "inputs": [[8, 0, 0], [9, 0, 0]]},
    {"op": "LeakyReLU", "name": "leaky", "attrs": {"slope": "0.1"}, "inputs": [[10, 0, 0]]},
    {"op": "Convolution", "name": "pw2", "attrs": {"kernel": "(1, 1)", "num_filter": "4", "no_bias": "True"}, "inputs": [[11, 0, 0], [9, 0, 0]]},
    {"op": "clip", "name": "clip11", "attrs": {"a_min": "-1", "a_max": "1.5"}, "inputs": [[12, 0, 0]]},
    {"op": "BatchNorm", "name": "bn2", "attrs": {"fix_gamma": "False"}, "inputs": [[13, 0, 0], [3, 0, 0], [4, 0, 0], [5, 0, 0], [6, 0, 0]]},
    {"op": "clip", "name": "relu6_last", "attrs": {"a_min": "0", "a_max": "6"}, "inputs": [[14, 0, 0]]}
  ],
  "arg_nodes": [0, 1, 3, 4, 5, 6, 9],
  "heads": [[15, 0, 0]]
})json";

}  // namespace

TEST_CASE("passes fuse clip (relu6) and leaky ReLU into convolutions, depthwise included", "[graph][passes]") {
  const Graph graph = ParseSymbolJson(kMobileBlock);
  CheckGraphOperators(graph);
  std::map<std::string, NDArrayPtr> params = {
      {"dw_weight", Filled({4, 1, 3, 3}, 0.5f)}, {"g", Filled({4}, 2.f)}, {"b", Filled({4}, 1.f)},
      {"m", Filled({4}, 0.25f)}, {"v", Filled({4}, 3.f)}, {"pw_weight", Filled({4, 4, 1, 1}, 1.f)},
  };
  BoundGraph g = BindParameters(graph, params);
  Optimize(g, CpuRules());
  std::vector<std::string> ops;
  for (int id : TopologicalOrder(g.graph))
    if (!g.graph.nodes[id].is_variable()) ops.push_back(g.graph.nodes[id].name);
  // oneDNN's batch normalisation fuses only ReLU, so the last clip stays a node of its own.
  REQUIRE(ops == std::vector<std::string>{"dw", "pw", "pw2", "bn2", "relu6_last"});
  REQUIRE(g.graph.nodes[2].post_ops == Ops({{PostOp::kClip, 0.f, 6.f}}));
  REQUIRE(g.graph.nodes[10].post_ops == Ops({{PostOp::kLeakyRelu, 0.1f}}));
  REQUIRE(g.graph.nodes[12].post_ops == Ops({{PostOp::kClip, -1.f, 1.5f}}));
  REQUIRE(g.graph.nodes[14].post_ops.empty());
}

TEST_CASE("passes fuse only what the backend's rules allow", "[graph][passes]") {
  const Graph graph = ParseSymbolJson(kResidualBlock);
  std::map<std::string, NDArrayPtr> params = {
      {"w1", Filled({4, 3, 3, 3}, 0.5f)}, {"arg:g", Filled({4}, 2.f)}, {"arg:b", Filled({4}, 1.f)},
      {"aux:m", Filled({4}, 0.25f)},      {"aux:v", Filled({4}, 3.f)},  {"w2", Filled({4, 4, 1, 1}, 1.f)},
  };
  BoundGraph g = BindParameters(graph, params);
  Optimize(g, NoFusions());
  std::vector<std::string> ops;
  for (int id : TopologicalOrder(g.graph)) {
    const Node& node = g.graph.nodes[id];
    if (node.is_variable()) continue;
    ops.push_back(node.op);
    REQUIRE(node.post_ops.empty());
  }
  // BatchNorm folding is arithmetic on the weights, not a backend's fusion: it still happens.
  REQUIRE(ops == std::vector<std::string>{"Convolution", "Activation", "Convolution", "elemwise_add", "Activation"});
}

TEST_CASE("passes fuse GELU, the residual add and ReLU into FullyConnected on the CPU", "[graph][passes]") {
  // data -> fc1 -> gelu -> fc2 -> relu, and fc2 + data: BERT's feed-forward block shape.
  const Graph graph = ParseSymbolJson(R"json({
    "nodes": [
      {"op": "null", "name": "data", "inputs": []},
      {"op": "null", "name": "w1", "inputs": []},
      {"op": "FullyConnected", "name": "fc1", "attrs": {"num_hidden": "8", "no_bias": "True", "flatten": "False"},
       "inputs": [[0, 0, 0], [1, 0, 0]]},
      {"op": "LeakyReLU", "name": "gelu", "attrs": {"act_type": "gelu"}, "inputs": [[2, 0, 0]]},
      {"op": "null", "name": "w2", "inputs": []},
      {"op": "FullyConnected", "name": "fc2", "attrs": {"num_hidden": "4", "no_bias": "True", "flatten": "False"},
       "inputs": [[3, 0, 0], [4, 0, 0]]},
      {"op": "elemwise_add", "name": "add", "inputs": [[5, 0, 0], [0, 0, 0]]},
      {"op": "Activation", "name": "relu", "attrs": {"act_type": "relu"}, "inputs": [[6, 0, 0]]}
    ],
    "arg_nodes": [0, 1, 4], "heads": [[7, 0, 0]]})json");
  BoundGraph g = BindParameters(graph, {{"w1", Filled({8, 4}, 0.5f)}, {"w2", Filled({4, 8}, 0.25f)}});
  Optimize(g, CpuRules());
  std::vector<std::string> ops;
  for (int id : TopologicalOrder(g.graph))
    if (!g.graph.nodes[id].is_variable()) ops.push_back(g.graph.nodes[id].name);
  REQUIRE(ops == std::vector<std::string>{"fc1", "fc2"});
  REQUIRE(g.graph.nodes[2].post_ops == Ops({{PostOp::kGelu}}));
  // relu(fc2 + data): the residual is fc2's last input, added before the ReLU.
  REQUIRE(g.graph.nodes[5].post_ops == Ops({{PostOp::kSum}, {PostOp::kRelu}}));
  REQUIRE(g.graph.nodes[5].inputs.back().node == 0);
}

TEST_CASE("an inner product MXNet quantized takes no activation or residual MXNet did not fuse into it",
          "[graph][passes]") {
  const Graph graph = ParseSymbolJson(R"json({
    "nodes": [
      {"op": "null", "name": "data", "inputs": []},
      {"op": "null", "name": "w", "inputs": []},
      {"op": "FullyConnected", "name": "fc", "attrs": {"num_hidden": "4", "no_bias": "True",
                                                       "__int8_in_type__": "uint8"}, "inputs": [[0, 0, 0], [1, 0, 0]]},
      {"op": "Activation", "name": "relu", "attrs": {"act_type": "relu"}, "inputs": [[2, 0, 0]]},
      {"op": "FullyConnected", "name": "fc2", "attrs": {"num_hidden": "4", "no_bias": "True",
                                                        "__int8_in_type__": "uint8"}, "inputs": [[3, 0, 0], [1, 0, 0]]},
      {"op": "elemwise_add", "name": "add", "inputs": [[4, 0, 0], [3, 0, 0]]}
    ],
    "arg_nodes": [0, 1], "heads": [[5, 0, 0]]})json");
  REQUIRE(int8_attr::kInType == "__int8_in_type__");
  BoundGraph g = BindParameters(graph, {{"w", Filled({4, 4}, 1.f)}});
  Optimize(g, CpuRules());
  REQUIRE(g.graph.nodes[2].post_ops.empty());
  REQUIRE(g.graph.nodes[3].op == "Activation");
  REQUIRE(g.graph.nodes[4].post_ops.empty());
  REQUIRE(g.graph.nodes[5].op == "elemwise_add");
}

TEST_CASE("a model file cannot smuggle in fused post-ops: only passes fuse", "[graph][passes]") {
  const Graph graph = ParseSymbolJson(R"json({
    "nodes": [
      {"op": "null", "name": "data", "inputs": []},
      {"op": "null", "name": "w", "inputs": []},
      {"op": "Convolution", "name": "conv", "attrs": {"kernel": "(1, 1)", "num_filter": "2", "no_bias": "True",
                                                       "__qv_post_ops__": "relu"}, "inputs": [[0, 0, 0], [1, 0, 0]]}
    ],
    "arg_nodes": [0, 1], "heads": [[2, 0, 0]]})json");
  BoundGraph g = BindParameters(graph, {{"w", Filled({2, 3, 1, 1}, 1.f)}});
  Optimize(g, CpuRules());
  REQUIRE(g.graph.nodes[2].post_ops.empty());
}

namespace {

// A residual block as MXNet's AMP conversion (bfloat16, cast_optional_params=False, saved with
// remove_amp_cast=False) writes it: casts on the data and each weight, casts back to float32 before
// an operator that stays float32, and an amp_multicast before an add of mixed types.
const char* kAmpBlock = R"json({
  "nodes": [
    {"op": "null", "name": "data", "inputs": []},
    {"op": "amp_cast", "name": "data_amp_cast_bfloat16", "attrs": {"dtype": "bfloat16"}, "inputs": [[0, 0, 0]]},
    {"op": "null", "name": "w1", "inputs": []},
    {"op": "amp_cast", "name": "w1_amp_cast_bfloat16", "attrs": {"dtype": "bfloat16"}, "inputs": [[2, 0, 0]]},
    {"op": "Convolution", "name": "c1", "attrs": {"kernel": "(3, 3)", "pad": "(1, 1)", "num_filter": "4", "no_bias": "True"}, "inputs": [[1, 0, 0], [3, 0, 0]]},
    {"op": "null", "name": "g", "inputs": []},
    {"op": "null", "name": "b", "inputs": []},
    {"op": "null", "name": "m", "inputs": []},
    {"op": "null", "name": "v", "inputs": []},
    {"op": "BatchNorm", "name": "bn", "attrs": {"fix_gamma": "False"}, "inputs": [[4, 0, 0], [5, 0, 0], [6, 0, 0], [7, 0, 0], [8, 0, 0]]},
    {"op": "Activation", "name": "r1", "attrs": {"act_type": "relu"}, "inputs": [[9, 0, 0]]},
    {"op": "null", "name": "w2", "inputs": []},
    {"op": "amp_cast", "name": "w2_amp_cast_bfloat16", "attrs": {"dtype": "bfloat16"}, "inputs": [[11, 0, 0]]},
    {"op": "Convolution", "name": "c2", "attrs": {"kernel": "(1, 1)", "num_filter": "4", "no_bias": "True"}, "inputs": [[10, 0, 0], [12, 0, 0]]},
    {"op": "amp_cast", "name": "r1_amp_cast_float32", "attrs": {"dtype": "float32"}, "inputs": [[10, 0, 0]]},
    {"op": "amp_multicast", "name": "c2_amp_multicast", "attrs": {"num_outputs": "2"}, "inputs": [[13, 0, 0], [14, 0, 0]]},
    {"op": "elemwise_add", "name": "add", "inputs": [[15, 0, 0], [15, 1, 0]]},
    {"op": "Activation", "name": "r2", "attrs": {"act_type": "relu"}, "inputs": [[16, 0, 0]]},
    {"op": "amp_cast", "name": "r2_amp_cast_float32", "attrs": {"dtype": "float32"}, "inputs": [[17, 0, 0]]}
  ],
  "arg_nodes": [0, 2, 5, 6, 7, 8, 11],
  "heads": [[18, 0, 0]]
})json";

}  // namespace

TEST_CASE("AMP casts fold away: weights rounded once, float32 casts and amp_multicast removed, fusion kept",
          "[graph][passes][amp_cast]") {
  const Graph graph = ParseSymbolJson(kAmpBlock);
  CheckGraphOperators(graph);
  const float w1 = 1.f + 0x1p-8f;  // a tie between two bfloat16 values: rounds down to the even 1.0
  const float w2 = 1.f + 3 * 0x1p-8f;  // also a tie: rounds up to the even 1 + 2^-6
  std::map<std::string, NDArrayPtr> params = {
      {"w1", Filled({4, 3, 3, 3}, w1)}, {"g", Filled({4}, 1.f)},  {"b", Filled({4}, 0.f)},
      {"m", Filled({4}, 0.f)},          {"v", Filled({4}, 1.f)},  {"w2", Filled({4, 4, 1, 1}, w2)},
  };
  BoundGraph g = BindParameters(graph, params);
  REQUIRE(g.input_names == std::vector<std::string>{"data"});
  Optimize(g, CpuRules());

  std::vector<std::string> ops;
  for (int id : TopologicalOrder(g.graph))
    if (!g.graph.nodes[id].is_variable()) ops.push_back(g.graph.nodes[id].op);
  // Only the rounding of the data (a computed value) is left to run.
  REQUIRE(ops == std::vector<std::string>{"amp_cast", "Convolution", "Convolution"});
  const Node& c1 = g.graph.nodes[4];
  const Node& c2 = g.graph.nodes[13];
  REQUIRE(c1.post_ops == Ops({kRelu}));
  REQUIRE(c2.post_ops == Ops({kSum, kRelu}));
  REQUIRE(c1.inputs[0] == NodeEntry{1, 0});
  REQUIRE(c2.inputs.back() == NodeEntry{4, 0});  // the residual: the first convolution, uncast
  // BatchNorm (scale 1 / sqrt(1 + 1e-3)) folds into the rounded weight.
  const double scale = 1.0 / std::sqrt(1.0 + 1e-3);
  REQUIRE(g.constants.at(c1.inputs[1].node)->data_as<float>()[0] == Approx(1.0 * scale).epsilon(1e-7));
  REQUIRE(g.constants.at(c2.inputs[1].node)->data_as<float>()[0] == 1.f + 0x1p-6f);
  REQUIRE(g.graph.outputs[0] == NodeEntry{13, 0});
}

TEST_CASE("a weight read through amp_cast is still checked and required at binding", "[graph][passes][amp_cast]") {
  const Graph graph = ParseSymbolJson(kAmpBlock);
  std::map<std::string, NDArrayPtr> params = {
      {"w1", Filled({4, 3, 3, 3}, 1.f)}, {"g", Filled({4}, 1.f)}, {"b", Filled({4}, 0.f)},
      {"m", Filled({4}, 0.f)},           {"v", Filled({4}, 1.f)},
  };
  const Error missing = BindError(graph, params);
  REQUIRE(missing.status() == Status::kNotFound);
  REQUIRE(std::string(missing.what()).find("'w2'") != std::string::npos);
  params["w2"] = Filled({5, 4, 1, 1}, 1.f);
  const Error misshaped = BindError(graph, params);
  REQUIRE(misshaped.status() == Status::kShape);
  REQUIRE(std::string(misshaped.what()).find("'c2'") != std::string::npos);
}

TEST_CASE("Cast to float32 is removed; Cast to int32 of data stays; moves of parameters fold", "[graph][passes][fold]") {
  const Graph graph = ParseSymbolJson(R"json({
    "nodes": [
      {"op": "null", "name": "data", "inputs": []},
      {"op": "Cast", "name": "to_f32", "attrs": {"dtype": "float32"}, "inputs": [[0, 0, 0]]},
      {"op": "Cast", "name": "to_i32", "attrs": {"dtype": "int32"}, "inputs": [[1, 0, 0]]},
      {"op": "null", "name": "w", "inputs": []},
      {"op": "transpose", "name": "wt", "inputs": [[3, 0, 0]]},
      {"op": "Reshape", "name": "wr", "attrs": {"shape": "(3, 2)"}, "inputs": [[4, 0, 0]]},
      {"op": "FullyConnected", "name": "fc", "attrs": {"num_hidden": "3", "no_bias": "True"},
       "inputs": [[2, 0, 0], [5, 0, 0]]}
    ],
    "arg_nodes": [0, 3], "heads": [[6, 0, 0]]})json");
  NDArrayPtr w = NDArray::Create({2, 3}, DType::kFloat32);
  for (int i = 0; i < 6; ++i) w->data_as<float>()[i] = static_cast<float>(i);  // [[0 1 2] [3 4 5]]
  BoundGraph g = BindParameters(graph, {{"w", w}});
  Optimize(g, NoFusions());
  std::vector<std::string> ops;
  for (int id : TopologicalOrder(g.graph))
    if (!g.graph.nodes[id].is_variable()) ops.push_back(g.graph.nodes[id].op);
  REQUIRE(ops == std::vector<std::string>{"Cast", "FullyConnected"});
  const Node& fc = g.graph.nodes[g.graph.outputs[0].node];
  REQUIRE(g.graph.nodes[fc.inputs[0].node].name == "to_i32");
  // transpose then Reshape of w: [[0 3] [1 4] [2 5]], one new parameter; w itself is released.
  const NDArray& folded = *g.constants.at(fc.inputs[1].node);
  REQUIRE(folded.shape() == Shape{3, 2});
  REQUIRE(std::vector<float>(folded.data_as<float>(), folded.data_as<float>() + 6) ==
          std::vector<float>{0, 3, 1, 4, 2, 5});
  REQUIRE(g.constants.count(3) == 0);
}
