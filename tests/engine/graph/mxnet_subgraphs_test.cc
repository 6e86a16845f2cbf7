#include "graph/mxnet_subgraphs.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "common/error.h"
#include "graph/symbol_json.h"
#include "ops/int8_hints.h"

using namespace qv;
using Catch::Matchers::Contains;

namespace {

// The shape of an MXNet 1.9 quantize_net export (calibrated), cut down: quantize_v2, a fused
// convolution + BatchNorm + ReLU, quantized pooling, and a fused inner product with int8 weights and
// float output. `extra` is appended to the node list (it may read any node) and `head` is the output.
std::string QuantizedModel(const std::string& extra = "", const std::string& head = "[12, 0, 0]") {
  return R"json({
    "nodes": [
      {"op": "null", "name": "data", "inputs": []},
      {"op": "_contrib_quantize_v2", "name": "data_quantize",
       "attrs": {"max_calib_range": "0.999", "min_calib_range": "0.0", "out_type": "auto"}, "inputs": [[0, 0, 0]]},
      {"op": "null", "name": "conv0_weight", "inputs": []},
      {"op": "null", "name": "bn0_gamma", "inputs": []},
      {"op": "null", "name": "bn0_beta", "inputs": []},
      {"op": "null", "name": "bn0_mean", "inputs": []},
      {"op": "null", "name": "bn0_var", "inputs": []},
      {"op": "_sg_mkldnn_conv", "name": "quantized_sg_mkldnn_conv_bn_act_0",
       "attrs": {"max_calib_range": "2.5", "min_calib_range": "0.0", "quantized": "true", "with_act": "true", "with_bn": "true"},
       "inputs": [[1, 0, 0], [2, 0, 0], [3, 0, 0], [4, 0, 0], [5, 0, 0], [6, 0, 0], [1, 1, 0], [1, 2, 0]],
       "subgraphs": [{
         "nodes": [
           {"op": "null", "name": "sg_data", "inputs": []},
           {"op": "null", "name": "conv0_weight", "inputs": []},
           {"op": "Convolution", "name": "conv0", "attrs": {"kernel": "(3, 3)", "num_filter": "4", "no_bias": "True", "pad": "(1, 1)"},
            "inputs": [[0, 0, 0], [1, 0, 0]]},
           {"op": "null", "name": "bn0_gamma", "inputs": []},
           {"op": "null", "name": "bn0_beta", "inputs": []},
           {"op": "null", "name": "bn0_mean", "inputs": []},
           {"op": "null", "name": "bn0_var", "inputs": []},
           {"op": "BatchNorm", "name": "bn0", "attrs": {"eps": "1e-05"}, "inputs": [[2, 0, 0], [3, 0, 0], [4, 0, 0], [5, 0, 0], [6, 0, 0]]},
           {"op": "Activation", "name": "relu0", "attrs": {"act_type": "relu"}, "inputs": [[7, 0, 0]]}
         ],
         "arg_nodes": [0, 1, 3, 4, 5, 6],
         "heads": [[8, 0, 0]]
       }]},
      {"op": "_contrib_quantized_pooling", "name": "quantized_pool0",
       "attrs": {"global_pool": "True", "kernel": "(1, 1)", "pool_type": "avg"}, "inputs": [[7, 0, 0], [7, 1, 0], [7, 2, 0]]},
      {"op": "null", "name": "fc0_weight_quantize", "inputs": []},
      {"op": "null", "name": "fc0_weight_quantize_min", "inputs": []},
      {"op": "null", "name": "fc0_weight_quantize_max", "inputs": []},
      {"op": "_sg_mkldnn_fully_connected", "name": "quantized_sg_mkldnn_fully_connected_0",
       "attrs": {"enable_float_output": "True", "quantized": "True"},
       "inputs": [[8, 0, 0], [9, 0, 0], [8, 1, 0], [8, 2, 0], [10, 0, 0], [11, 0, 0]],
       "subgraphs": [{
         "nodes": [
           {"op": "null", "name": "sg_data", "inputs": []},
           {"op": "null", "name": "fc0_weight", "inputs": []},
           {"op": "FullyConnected", "name": "fc0", "attrs": {"num_hidden": "2", "no_bias": "True"}, "inputs": [[0, 0, 0], [1, 0, 0]]}
         ],
         "arg_nodes": [0, 1],
         "heads": [[2, 0, 0]]
       }]})json" +
         extra + R"json(
    ],
    "arg_nodes": [0, 2, 3, 4, 5, 6, 9, 10, 11],
    "heads": [)json" +
         head + R"json(]
  })json";
}

const Node& Find(const Graph& g, const std::string& name) {
  const auto it = std::find_if(g.nodes.begin(), g.nodes.end(), [&](const Node& n) { return n.name == name; });
  INFO("node " << name);
  REQUIRE(it != g.nodes.end());
  return *it;
}

NDArrayPtr Scalar(float v) {
  NDArrayPtr a = NDArray::Create({1}, DType::kFloat32);
  *a->data_as<float>() = v;
  return a;
}

}  // namespace

TEST_CASE("MXNet's quantized export becomes the float operators with int8 hints", "[graph][int8]") {
  const Graph g = ParseSymbolJson(QuantizedModel());
  for (const Node& n : g.nodes) {
    INFO(n.name << " (" << n.op << ")");
    CHECK(n.op.find("_contrib_") == std::string::npos);
    CHECK_FALSE(IsMxnetFusedOp(n.op));
    CHECK(n.name.find("_min") == std::string::npos);  // range variables are gone
  }
  const Node& conv = Find(g, "conv0");
  CHECK(conv.inputs[0].node == 0);  // reads the float input: quantize_v2 is gone
  CHECK(conv.attrs.at(int8_attr::kInType) == "uint8");  // calibrated minimum 0: uint8
  CHECK(std::stof(conv.attrs.at(int8_attr::kInRange)) == Approx(0.999));
  CHECK(conv.attrs.at(int8_attr::kOutType) == "uint8");  // ends in a ReLU
  CHECK(std::stof(conv.attrs.at(int8_attr::kOutRange)) == Approx(2.5));
  CHECK(conv.attrs.at(int8_attr::kChannelwise) == "true");
  CHECK(conv.attrs.at(int8_attr::kFusedOps) == "2");  // BatchNorm and the ReLU
  CHECK(Find(g, "quantized_pool0").op == "Pooling");
  const Node& fc = Find(g, "fc0");
  CHECK(fc.attrs.at(int8_attr::kInType) == "uint8");  // through the pooling
  CHECK(std::stof(fc.attrs.at(int8_attr::kInRange)) == Approx(2.5));
  CHECK(fc.attrs.at(int8_attr::kOutType) == "float32");
  CHECK(fc.attrs.at(int8_attr::kWeightLevels) == "127");
  CHECK(g.nodes[fc.inputs[1].node].attrs.at(int8_attr::kWeightMax) == "fc0_weight_quantize_max");
  CHECK(CountInt8Nodes(g) == 2);
  CHECK(g.nodes[g.outputs[0].node].name == "fc0");
}

TEST_CASE("DequantizeInt8Params gives int8 weights the values MXNet's kernel multiplies with", "[graph][int8]") {
  const Graph g = ParseSymbolJson(QuantizedModel());
  NDArrayPtr q = NDArray::Create({2, 2}, DType::kInt8);
  const int8_t values[] = {127, -64, 0, -127};
  for (int i = 0; i < 4; ++i) q->data_as<int8_t>()[i] = values[i];
  std::map<std::string, NDArrayPtr> params = {{"arg:fc0_weight_quantize", q},
                                              {"arg:fc0_weight_quantize_min", Scalar(-0.5f)},
                                              {"arg:fc0_weight_quantize_max", Scalar(0.25f)}};
  DequantizeInt8Params(g, params);
  const NDArray& w = *params.at("arg:fc0_weight_quantize");
  REQUIRE(w.dtype() == DType::kFloat32);
  for (int i = 0; i < 4; ++i) CHECK(w.data_as<float>()[i] == Approx(values[i] * 0.5f / 127.5f));

  params.erase("arg:fc0_weight_quantize_max");
  CHECK_THROWS_WITH(DequantizeInt8Params(g, params), Contains("fc0_weight_quantize_max"));
}

namespace {

// A second quantized inner product, "fc1", reading node `input` (and its range outputs): its int8
// weight and range variables are the three nodes after `input`, then the fused node.
std::string SecondInnerProduct(int input) {
  const std::string in = std::to_string(input);
  const auto var = [&](int k) { return "[" + std::to_string(input + k) + ", 0, 0]"; };
  return R"json({"op": "null", "name": "fc1_weight_quantize", "inputs": []},
      {"op": "null", "name": "fc1_weight_quantize_min", "inputs": []},
      {"op": "null", "name": "fc1_weight_quantize_max", "inputs": []},
      {"op": "_sg_mkldnn_fully_connected", "name": "quantized_sg_mkldnn_fully_connected_1",
       "attrs": {"enable_float_output": "True", "quantized": "True"},
       "inputs": [[)json" + in + ", 0, 0], " + var(1) + ", [" + in + ", 1, 0], [" + in + ", 2, 0], " + var(2) + ", " +
         var(3) + R"json(],
       "subgraphs": [{
         "nodes": [
           {"op": "null", "name": "sg_data", "inputs": []},
           {"op": "null", "name": "fc1_weight", "inputs": []},
           {"op": "FullyConnected", "name": "fc1", "attrs": {"num_hidden": "2", "no_bias": "True"}, "inputs": [[0, 0, 0], [1, 0, 0]]}
         ],
         "arg_nodes": [0, 1],
         "heads": [[2, 0, 0]]
       }]})json";
}

// A quantized concat of the pooling (uint8, range 2.5), the quantized data (uint8, 0.999) and, when
// `with_int8`, the data quantized as int8 (range 3), read by a second quantized inner product.
std::string ConcatModel(bool with_int8) {
  const std::string int8_input = with_int8 ? ", [13, 0, 0]" : "";
  const std::string int8_range = with_int8 ? ", [13, 1, 0], [13, 2, 0]" : "";
  return R"json(,
      {"op": "_contrib_quantize_v2", "name": "data_quantize_s8",
       "attrs": {"max_calib_range": "3.0", "min_calib_range": "-2.0", "out_type": "int8"}, "inputs": [[0, 0, 0]]},
      {"op": "_contrib_quantized_concat", "name": "quantized_concat0",
       "attrs": {"dim": "1", "num_args": ")json" + std::string(with_int8 ? "3" : "2") + R"json("},
       "inputs": [[8, 0, 0], [1, 0, 0])json" + int8_input + R"json(, [8, 1, 0], [8, 2, 0], [1, 1, 0], [1, 2, 0])json" +
         int8_range + R"json(]},
      )json" + SecondInnerProduct(14);
}

}  // namespace

TEST_CASE("MXNet's quantized concat becomes Concat on the widest of its inputs' ranges", "[graph][int8]") {
  for (const bool with_int8 : {false, true}) {
    INFO((with_int8 ? "uint8 and int8 inputs" : "uint8 inputs"));
    const Graph g = ParseSymbolJson(QuantizedModel(ConcatModel(with_int8), "[12, 0, 0], [18, 0, 0]"));
    const Node& concat = Find(g, "quantized_concat0");
    CHECK(concat.op == "Concat");
    REQUIRE(concat.inputs.size() == (with_int8 ? 3u : 2u));
    CHECK(g.nodes[concat.inputs[0].node].name == "quantized_pool0");
    CHECK(g.nodes[concat.inputs[1].node].name == "data");
    // MXNet: int8 if any input is int8, else uint8, over the widest range, with its data levels.
    const Node& fc = Find(g, "fc1");
    CHECK(g.nodes[fc.inputs[0].node].name == "quantized_concat0");
    CHECK(fc.attrs.at(int8_attr::kInType) == (with_int8 ? "int8" : "uint8"));
    CHECK(std::stof(fc.attrs.at(int8_attr::kInRange)) == Approx(with_int8 ? 3.0 : 2.5));
    CHECK(std::stof(fc.attrs.at(int8_attr::kInLevels)) == Approx(with_int8 ? 127.5 : 255.5));
  }
}

namespace {

// A quantized BatchNorm of the pooling (as MXNet writes one after a Deconvolution), its int8 output
// read by a second quantized inner product; `range` holds its calibration attributes, or is empty.
std::string BatchNormModel(const std::string& range) {
  return R"json(,
      {"op": "null", "name": "qbn_gamma", "inputs": []},
      {"op": "null", "name": "qbn_beta", "inputs": []},
      {"op": "null", "name": "qbn_mean", "inputs": []},
      {"op": "null", "name": "qbn_var", "inputs": []},
      {"op": "_contrib_quantized_batch_norm", "name": "qbn", "attrs": {"eps": "1e-05", "fix_gamma": "True")json" +
         range + R"json(},
       "inputs": [[8, 0, 0], [13, 0, 0], [14, 0, 0], [15, 0, 0], [16, 0, 0], [8, 1, 0], [8, 2, 0]]},
      )json" + SecondInnerProduct(17);
}

}  // namespace

TEST_CASE("MXNet's quantized BatchNorm becomes BatchNorm with an int8 output of 127 steps", "[graph][int8]") {
  const Graph g = ParseSymbolJson(
      QuantizedModel(BatchNormModel(R"json(, "min_calib_range": "-1.5", "max_calib_range": "3.0")json"),
                     "[12, 0, 0], [21, 0, 0]"));
  const Node& bn = Find(g, "qbn");
  CHECK(bn.op == "BatchNorm");
  REQUIRE(bn.inputs.size() == 5u);
  CHECK(g.nodes[bn.inputs[0].node].name == "quantized_pool0");
  CHECK(bn.attrs.at("fix_gamma") == "False");  // MXNet's quantized kernel always scales by gamma
  CHECK(bn.attrs.count("min_calib_range") == 0);
  const Node& fc = Find(g, "fc1");
  CHECK(fc.attrs.at(int8_attr::kInType) == "int8");
  CHECK(std::stof(fc.attrs.at(int8_attr::kInRange)) == Approx(3.0));
  CHECK(std::stof(fc.attrs.at(int8_attr::kInLevels)) == Approx(127.0));
  // Without a calibrated range MXNet 1.9.1 cannot run the node; Quiver refuses it, naming it.
  CHECK_THROWS_WITH(ParseSymbolJson(QuantizedModel(BatchNormModel(""), "[12, 0, 0], [21, 0, 0]")),
                    Contains("'qbn'") && Contains("min_calib_range"));
}

TEST_CASE("Quantized operators Quiver cannot rewrite are refused naming them", "[graph][int8]") {
  const std::string add = R"json(,
      {"op": "_contrib_quantized_elemwise_add", "name": "qadd",
       "inputs": [[8, 0, 0], [8, 0, 0], [8, 1, 0], [8, 2, 0], [8, 1, 0], [8, 2, 0]]})json";
  try {
    ParseSymbolJson(QuantizedModel(add, "[13, 0, 0]"));
    FAIL("accepted");
  } catch (const Error& e) {
    CHECK(e.status() == Status::kUnsupported);
    CHECK_THAT(e.what(), Contains("qadd") && Contains("_contrib_quantized_elemwise_add"));
  }
  // A quantized concat whose ranges are not its data inputs' own.
  const std::string concat = R"json(,
      {"op": "_contrib_quantized_concat", "name": "qconcat", "attrs": {"num_args": "1"},
       "inputs": [[8, 0, 0], [1, 1, 0], [1, 2, 0]]})json";
  CHECK_THROWS_WITH(ParseSymbolJson(QuantizedModel(concat, "[13, 0, 0]")),
                    Contains("'qconcat'") && Contains("range of data input 0"));
  // A float operator may not read a range output.
  const std::string reads_range = R"json(,
      {"op": "relu", "name": "bad", "inputs": [[1, 1, 0]]})json";
  CHECK_THROWS_WITH(ParseSymbolJson(QuantizedModel(reads_range, "[13, 0, 0]")),
                    Contains("'bad'") && Contains("quantization range"));
}

TEST_CASE("A quantized inner product without a bias cannot have its subgraph read one", "[graph][int8]") {
  // Six inputs, the third a variable: the subgraph's third variable (a bias) maps onto it, and a bias's
  // range would be input 6 or 7, past the node's inputs.
  const std::string json = R"json({
    "nodes": [
      {"op": "null", "name": "data", "inputs": []},
      {"op": "_contrib_quantize_v2", "name": "data_quantize",
       "attrs": {"max_calib_range": "1.0", "min_calib_range": "0.0", "out_type": "uint8"}, "inputs": [[0, 0, 0]]},
      {"op": "null", "name": "w", "inputs": []},
      {"op": "null", "name": "w_min", "inputs": []},
      {"op": "null", "name": "w_max", "inputs": []},
      {"op": "_sg_mkldnn_fully_connected", "name": "qfc", "attrs": {"quantized": "true"},
       "inputs": [[1, 0, 0], [2, 0, 0], [3, 0, 0], [1, 1, 0], [3, 0, 0], [4, 0, 0]],
       "subgraphs": [{
         "nodes": [
           {"op": "null", "name": "sg_data", "inputs": []},
           {"op": "null", "name": "w", "inputs": []},
           {"op": "null", "name": "b", "inputs": []},
           {"op": "FullyConnected", "name": "fc", "attrs": {"num_hidden": "2"}, "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]}
         ],
         "heads": [[3, 0, 0]]
       }]}
    ],
    "heads": [[5, 0, 0]]
  })json";
  try {
    ParseSymbolJson(json);
    FAIL("accepted");
  } catch (const Error& e) {
    CHECK(e.status() == Status::kUnsupported);
    CHECK_THAT(e.what(), Contains("'qfc'") && Contains("6 inputs") && Contains("bias"));
  }
}
