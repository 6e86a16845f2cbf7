// Every CUDA kernel against the CPU backend: the same one-operator (or few-operator) graph compiled
// for cpu(0) and for gpu(0), run on the same seeded random inputs, every output compared with
// qv_test::Compare's FP32 bound (|gpu - cpu| <= 1e-5 * max(1, max |cpu|)).
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "quiver/c_api.h"
#include "gpu_vs_cpu.h"
#include "support/single_op.h"

namespace {

using qv_ref::Tensor;
using qv_test::AttrMap;
using qv_test::ExpectGpuMatchesCpu;
using qv_test::GraphBuilder;
using Params = std::map<std::string, Tensor>;

// One operator over one data input.
void ExpectUnaryOp(const std::string& op, const AttrMap& attrs, const qv_ref::Shape& shape, float lo = -3.f,
                   float hi = 3.f) {
  INFO(op);
  GraphBuilder g;
  g.Output(g.Op(op, "op0", attrs, {g.Variable("data")}));
  std::mt19937 rng(11);
  ExpectGpuMatchesCpu(g, {}, {qv_test::Random(shape, &rng, lo, hi)});
}

TEST_CASE("GPU FullyConnected (cuBLASLt) matches the CPU: bias, no bias, 4-D flatten, last axis, fused ReLU", "[gpu]") {
  std::mt19937 rng(3);
  struct Case {
    qv_ref::Shape data;
    AttrMap attrs;
    int64_t k;
    bool relu;
  };
  const std::vector<Case> cases = {
      {{4, 32}, {{"num_hidden", "16"}}, 32, false},
      {{4, 32}, {{"num_hidden", "16"}, {"no_bias", "True"}}, 32, false},
      {{3, 4, 5, 6}, {{"num_hidden", "10"}}, 120, false},
      {{2, 3, 7}, {{"num_hidden", "5"}, {"flatten", "False"}}, 7, false},
      {{8, 64}, {{"num_hidden", "33"}}, 64, true},
      {{8, 64}, {{"num_hidden", "33"}, {"no_bias", "True"}}, 64, true},
  };
  for (const Case& c : cases) {
    INFO("data " << qv_ref::ShapeToString(c.data) << ", relu " << c.relu);
    const int64_t n = std::stoll(c.attrs.at("num_hidden"));
    const bool bias = c.attrs.count("no_bias") == 0;
    GraphBuilder g;
    const int data = g.Variable("data"), w = g.Variable("fc_weight");
    std::vector<qv_test::Entry> ins = {data, w};
    if (bias) ins.push_back(g.Variable("fc_bias"));
    int out = g.Op("FullyConnected", "fc", c.attrs, ins);
    if (c.relu) out = g.Op("Activation", "fc_relu", {{"act_type", "relu"}}, {out});
    g.Output(out);
    Params params = {{"fc_weight", qv_test::Random({n, c.k}, &rng)}};
    if (bias) params["fc_bias"] = qv_test::Random({n}, &rng);
    ExpectGpuMatchesCpu(g, params, {qv_test::Random(c.data, &rng)});
  }
}

TEST_CASE("GPU FullyConnected serves a second batch size from its uploaded weights", "[gpu]") {
  std::mt19937 rng(5);
  GraphBuilder g;
  g.Output(g.Op("FullyConnected", "fc", {{"num_hidden", "6"}}, {g.Variable("data"), g.Variable("w"), g.Variable("b")}));
  const Params params = {{"w", qv_test::Random({6, 10}, &rng)}, {"b", qv_test::Random({6}, &rng)}};
  const std::string json = g.ToJson();
  const qv_test::CompiledGraph cpu(json, params);
  const qv_test::CompiledGraph gpu(json, params, {{"device", "gpu(0)"}});
  for (int64_t batch : {2, 7, 2}) {
    INFO("batch " << batch);
    const Tensor x = qv_test::Random({batch, 10}, &rng);
    const Tensor want = cpu.Run({x})[0], got = gpu.Run({x}, QV_GPU)[0];
    const qv_test::Comparison c = qv_test::Compare(got, want);
    INFO(c.Describe(got, want));
    CHECK(c.ok());
  }
}

TEST_CASE("GPU activations match the CPU", "[gpu]") {
  for (const char* type : {"relu", "sigmoid", "tanh", "softrelu", "softsign"})
    ExpectUnaryOp("Activation", {{"act_type", type}}, {2, 3, 5, 7}, -30.f, 30.f);
  ExpectUnaryOp("relu", {}, {1000});
  ExpectUnaryOp("sigmoid", {}, {2, 3, 5, 7}, -30.f, 30.f);
  ExpectUnaryOp("tanh", {}, {2, 3, 5, 7}, -30.f, 30.f);
}

TEST_CASE("GPU math functions match the CPU", "[gpu]") {
  ExpectUnaryOp("exp", {}, {3, 4, 25}, -20.f, 20.f);
  for (const char* op : {"expm1", "cbrt", "square", "abs", "sign", "negative", "floor", "ceil", "round", "rint", "trunc",
                         "fix", "sin", "cos", "tan", "tanh", "erf"})
    ExpectUnaryOp(op, {}, {3, 4, 25}, -1.5f, 1.5f);
  for (const char* op : {"log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal"})
    ExpectUnaryOp(op, {}, {3, 4, 25}, 0.1f, 10.f);
}

TEST_CASE("GPU clip and LeakyReLU match the CPU", "[gpu]") {
  ExpectUnaryOp("clip", {{"a_min", "-0.5"}, {"a_max", "1.25"}}, {3, 17});
  for (const AttrMap& attrs : std::vector<AttrMap>{{{"act_type", "leaky"}, {"slope", "0.1"}},
                                                   {{"act_type", "elu"}, {"slope", "0.7"}},
                                                   {{"act_type", "selu"}},
                                                   {{"act_type", "gelu"}},
                                                   {{"act_type", "rrelu"}, {"lower_bound", "0.1"}, {"upper_bound", "0.3"}}})
    ExpectUnaryOp("LeakyReLU", attrs, {4, 3, 5});
}

TEST_CASE("GPU scalar arithmetic and comparisons match the CPU", "[gpu]") {
  for (const char* op : {"_plus_scalar", "_minus_scalar", "_rminus_scalar", "_mul_scalar", "_div_scalar",
                         "_rdiv_scalar", "_greater_scalar", "_greater_equal_scalar", "_lesser_scalar",
                         "_lesser_equal_scalar", "_equal_scalar", "_not_equal_scalar", "_maximum_scalar",
                         "_minimum_scalar", "_power_scalar", "_rpower_scalar", "_mod_scalar", "_rmod_scalar"})
    ExpectUnaryOp(op, {{"scalar", "0.5"}}, {6, 11}, 0.25f, 2.f);
  // Exact hits for the equality tests.
  GraphBuilder g;
  const int data = g.Variable("data");
  g.Output(g.Op("_equal_scalar", "eq", {{"scalar", "2"}}, {data}));
  g.Output(g.Op("_not_equal_scalar", "ne", {{"scalar", "2"}}, {data}));
  ExpectGpuMatchesCpu(g, {}, {Tensor({5}, {1, 2, 3, 2, 0})});
}

TEST_CASE("GPU maximum, minimum, power, mod and comparisons match the CPU", "[gpu]") {
  std::mt19937 rng(9);
  for (const char* f : {"maximum", "minimum", "power", "mod", "equal", "not_equal", "greater", "greater_equal",
                        "lesser", "lesser_equal"}) {
    INFO(f);
    GraphBuilder g;
    const int a = g.Variable("a"), b = g.Variable("b");
    g.Output(g.Op(std::string("_") + f, "same", {}, {a, b}));
    g.Output(g.Op(std::string("broadcast_") + f, "stretched", {}, {a, g.Variable("row")}));
    ExpectGpuMatchesCpu(g, {}, {qv_test::Random({3, 4, 5}, &rng, 0.5f, 3.f), qv_test::Random({3, 4, 5}, &rng, -2.f, 2.f),
                                qv_test::Random({1, 4, 1}, &rng, -2.f, 2.f)});
  }
}

TEST_CASE("GPU binary operators match the CPU, with broadcasting and parameter operands", "[gpu]") {
  std::mt19937 rng(9);
  for (const char* op : {"elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div"}) {
    INFO(op);
    GraphBuilder g;
    g.Output(g.Op(op, "op0", {}, {g.Variable("a"), g.Variable("b")}));
    ExpectGpuMatchesCpu(g, {}, {qv_test::Random({3, 4, 5}, &rng, 0.5f, 2.f), qv_test::Random({3, 4, 5}, &rng, 0.5f, 2.f)});
  }
  const std::vector<std::pair<qv_ref::Shape, qv_ref::Shape>> shapes = {
      {{2, 3, 4}, {1, 3, 1}}, {{2, 3, 4}, {4}}, {{5, 1}, {1, 6}}, {{2, 1, 3, 1}, {4, 1, 5}}};
  for (const char* op : {"broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_div"})
    for (const auto& [a, b] : shapes) {
      INFO(op << " " << qv_ref::ShapeToString(a) << " " << qv_ref::ShapeToString(b));
      GraphBuilder g;
      g.Output(g.Op(op, "op0", {}, {g.Variable("a"), g.Variable("b")}));
      ExpectGpuMatchesCpu(g, {}, {qv_test::Random(a, &rng, 0.5f, 2.f), qv_test::Random(b, &rng, 0.5f, 2.f)});
    }
  // A parameter as one operand: the kernel must read its device copy.
  GraphBuilder g;
  g.Output(g.Op("broadcast_mul", "scale", {}, {g.Variable("data"), g.Variable("gain")}));
  ExpectGpuMatchesCpu(g, {{"gain", qv_test::Random({1, 4, 1}, &rng)}}, {qv_test::Random({2, 4, 3}, &rng)});
}

TEST_CASE("GPU softmax matches the CPU on the last axis, a given axis and with a temperature", "[gpu]") {
  ExpectUnaryOp("softmax", {}, {4, 1000}, -10.f, 10.f);
  ExpectUnaryOp("softmax", {{"axis", "1"}}, {2, 7, 3, 5}, -10.f, 10.f);
  ExpectUnaryOp("softmax", {{"axis", "0"}, {"temperature", "2.5"}}, {6, 4}, -10.f, 10.f);
  ExpectUnaryOp("SoftmaxActivation", {{"mode", "channel"}}, {2, 5, 3, 3});
  ExpectUnaryOp("SoftmaxActivation", {}, {3, 10});
  GraphBuilder g;
  g.Output(g.Op("SoftmaxOutput", "prob", {}, {g.Variable("data"), g.Variable("label")}));
  std::mt19937 rng(2);
  ExpectGpuMatchesCpu(g, {}, {qv_test::Random({4, 10}, &rng)});  // inference drops the label input
}

TEST_CASE("GPU Concat matches the CPU along the first, a middle and the last axis", "[gpu]") {
  std::mt19937 rng(4);
  for (const char* dim : {"0", "1", "-1"}) {
    INFO("dim " << dim);
    GraphBuilder g;
    g.Output(g.Op("Concat", "cat", {{"dim", dim}, {"num_args", "3"}}, {g.Variable("a"), g.Variable("b"), g.Variable("c")}));
    const std::string d = dim;
    auto shape = [&](int64_t size) {
      qv_ref::Shape s = {2, 3, 4};
      s[d == "0" ? 0 : d == "1" ? 1 : 2] = size;
      return s;
    };
    ExpectGpuMatchesCpu(g, {},
                        {qv_test::Random(shape(1), &rng), qv_test::Random(shape(2), &rng), qv_test::Random(shape(5), &rng)});
  }
}

TEST_CASE("GPU Flatten, Reshape, expand_dims, squeeze and reshape_like match the CPU", "[gpu]") {
  ExpectUnaryOp("Flatten", {}, {2, 3, 4, 5});
  ExpectUnaryOp("Reshape", {{"shape", "(0, -1, 2)"}}, {3, 4, 6});
  ExpectUnaryOp("expand_dims", {{"axis", "1"}}, {3, 4});
  ExpectUnaryOp("squeeze", {{"axis", "(0, 2)"}}, {1, 4, 1, 3});
  GraphBuilder g;
  g.Output(g.Op("reshape_like", "like", {}, {g.Variable("lhs"), g.Variable("rhs")}));
  std::mt19937 rng(5);
  ExpectGpuMatchesCpu(g, {}, {qv_test::Random({2, 12}, &rng), qv_test::Random({4, 3, 2}, &rng)});
}

TEST_CASE("GPU transpose and slices match the CPU", "[gpu]") {
  ExpectUnaryOp("transpose", {}, {2, 3, 4});
  ExpectUnaryOp("transpose", {{"axes", "(0, 2, 3, 1)"}}, {2, 3, 4, 5});
  ExpectUnaryOp("slice", {{"begin", "(1, None, 0)"}, {"end", "(3, None, 5)"}, {"step", "(1, -1, 2)"}}, {4, 3, 6});
  ExpectUnaryOp("slice_axis", {{"axis", "-1"}, {"begin", "2"}, {"end", "None"}}, {3, 7});
  GraphBuilder g;
  g.Output(g.Op("slice_like", "crop", {{"axes", "(2, 3)"}}, {g.Variable("data"), g.Variable("like")}));
  std::mt19937 rng(6);
  ExpectGpuMatchesCpu(g, {}, {qv_test::Random({2, 3, 8, 8}, &rng), qv_test::Random({1, 1, 5, 6}, &rng)});
  ExpectUnaryOp("Crop", {{"num_args", "1"}, {"h_w", "(4, 5)"}, {"offset", "(2, 3)"}}, {2, 3, 9, 8});
  GraphBuilder like;
  like.Output(like.Op("Crop", "crop", {{"num_args", "2"}, {"center_crop", "True"}},
                      {like.Variable("data"), like.Variable("like")}));
  ExpectGpuMatchesCpu(like, {}, {qv_test::Random({2, 3, 9, 8}, &rng), qv_test::Random({1, 1, 7, 6}, &rng)});
}

TEST_CASE("GPU tile and repeat match the CPU", "[gpu]") {
  ExpectUnaryOp("tile", {{"reps", "(2, 3)"}}, {2, 3, 4});
  ExpectUnaryOp("tile", {{"reps", "(20, 1, 1, 1, 1)"}}, {1, 5, 3, 4});  // YOLOv3's boxes, a copy per class
  ExpectUnaryOp("tile", {{"reps", "(2, 2, 2, 2)"}}, {2, 3, 4, 5});
  for (const char* axis : {"0", "-1", "-2"}) ExpectUnaryOp("repeat", {{"repeats", "2"}, {"axis", axis}}, {2, 3, 5, 6});
  ExpectUnaryOp("repeat", {{"repeats", "3"}}, {2, 3, 4});  // no axis: the flattened data
}

TEST_CASE("GPU reductions match the CPU: every axis, some axes, exclude, keepdims", "[gpu]") {
  for (const char* op : {"sum", "mean", "max", "min"}) {
    ExpectUnaryOp(op, {}, {2, 3, 4, 5});
    ExpectUnaryOp(op, {{"axis", "(2, 3)"}, {"keepdims", "True"}}, {2, 3, 4, 5});
    ExpectUnaryOp(op, {{"axis", "(0, -2)"}}, {2, 3, 4, 5});
    ExpectUnaryOp(op, {{"axis", "1"}, {"exclude", "True"}}, {2, 3, 4, 5});
  }
  ExpectUnaryOp("prod", {{"axis", "-1"}}, {3, 4, 5}, 0.9f, 1.1f);
}

TEST_CASE("GPU add_n matches the CPU: one, two and four inputs", "[gpu]") {
  std::mt19937 rng(12);
  for (int n : {1, 2, 4}) {
    GraphBuilder g;
    std::vector<qv_test::Entry> inputs;
    std::vector<qv_ref::Tensor> values;
    for (int i = 0; i < n; ++i) {
      inputs.push_back(g.Variable("x" + std::to_string(i)));
      values.push_back(qv_test::Random({3, 4, 5}, &rng));
    }
    g.Output(g.Op("add_n", "sum", {{"num_args", std::to_string(n)}}, inputs));
    ExpectGpuMatchesCpu(g, {}, values);
  }
}

TEST_CASE("GPU SliceChannel and stack match the CPU", "[gpu]") {
  std::mt19937 rng(8);
  GraphBuilder split;
  const int parts = split.Op("SliceChannel", "split", {{"num_outputs", "3"}, {"axis", "1"}}, {split.Variable("data")});
  for (int p = 0; p < 3; ++p) split.Output({parts, p});
  ExpectGpuMatchesCpu(split, {}, {qv_test::Random({2, 6, 4, 5}, &rng)});
  GraphBuilder stack;
  stack.Output(stack.Op("stack", "stack", {{"axis", "1"}, {"num_args", "2"}}, {stack.Variable("a"), stack.Variable("b")}));
  ExpectGpuMatchesCpu(stack, {}, {qv_test::Random({3, 4, 5}, &rng), qv_test::Random({3, 4, 5}, &rng)});
}

TEST_CASE("GPU SwapAxis and the broadcasts match the CPU", "[gpu]") {
  ExpectUnaryOp("SwapAxis", {{"dim1", "1"}, {"dim2", "-1"}}, {2, 3, 4, 5});
  ExpectUnaryOp("broadcast_axis", {{"axis", "(1, 3)"}, {"size", "(4, 5)"}}, {2, 1, 3, 1});
  ExpectUnaryOp("broadcast_to", {{"shape", "(4, 0, 5)"}}, {1, 3, 1});
  GraphBuilder g;
  g.Output(g.Op("broadcast_like", "like", {}, {g.Variable("lhs"), g.Variable("rhs")}));
  std::mt19937 rng(7);
  ExpectGpuMatchesCpu(g, {}, {qv_test::Random({2, 1, 1, 4}, &rng), qv_test::Random({2, 3, 5, 4}, &rng)});
}

TEST_CASE("GPU Pooling matches the CPU: max, avg, sum, global, padding and the full convention", "[gpu]") {
  const std::vector<AttrMap> cases = {
      {{"pool_type", "max"}, {"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}},
      {{"pool_type", "avg"}, {"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}},
      {{"pool_type", "avg"}, {"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}, {"count_include_pad", "False"}},
      {{"pool_type", "avg"}, {"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pooling_convention", "full"}},
      {{"pool_type", "max"}, {"kernel", "(2, 2)"}, {"stride", "(2, 2)"}, {"pooling_convention", "full"}},
      {{"pool_type", "sum"}, {"kernel", "(2, 3)"}, {"stride", "(1, 2)"}},
      {{"pool_type", "max"}, {"kernel", "(1, 1)"}, {"global_pool", "True"}},
      {{"pool_type", "avg"}, {"kernel", "(1, 1)"}, {"global_pool", "True"}},
  };
  for (const AttrMap& attrs : cases) ExpectUnaryOp("Pooling", attrs, {2, 3, 9, 10});
}

TEST_CASE("GPU 3-D Pooling matches the CPU: max, avg, sum, global, padding and the full convention", "[gpu]") {
  const std::vector<AttrMap> cases = {
      {{"pool_type", "max"}, {"kernel", "(1, 3, 3)"}, {"stride", "(1, 2, 2)"}, {"pad", "(0, 1, 1)"}},
      {{"pool_type", "max"}, {"kernel", "(3, 1, 1)"}, {"stride", "(2, 1, 1)"}, {"pad", "(1, 0, 0)"}},
      {{"pool_type", "avg"}, {"kernel", "(3, 3, 3)"}, {"stride", "(2, 2, 2)"}, {"pad", "(1, 1, 1)"},
       {"count_include_pad", "False"}},
      {{"pool_type", "avg"}, {"kernel", "(2, 3, 2)"}, {"stride", "(2, 2, 3)"}, {"pooling_convention", "full"}},
      {{"pool_type", "sum"}, {"kernel", "(2, 2, 2)"}, {"stride", "(1, 2, 2)"}},
      {{"pool_type", "avg"}, {"kernel", "(1, 1, 1)"}, {"global_pool", "True"}},
  };
  for (const AttrMap& attrs : cases) ExpectUnaryOp("Pooling", attrs, {2, 3, 5, 7, 6});
}

TEST_CASE("GPU GroupNorm matches the CPU: one group, several, one per channel, 5-D data", "[gpu]") {
  std::mt19937 rng(9);
  struct Case {
    qv_ref::Shape data;
    int64_t groups;
  };
  for (const Case& c : {Case{{2, 8, 5, 6}, 4}, Case{{1, 6, 7, 3}, 1}, Case{{2, 4, 3, 3}, 4}, Case{{1, 8, 3, 4, 5}, 2}}) {
    INFO("data " << qv_ref::ShapeToString(c.data) << ", groups " << c.groups);
    GraphBuilder g;
    g.Output(g.Op("GroupNorm", "gn", {{"num_groups", std::to_string(c.groups)}, {"eps", "1e-5"}},
                  {g.Variable("data"), g.Variable("gn_gamma"), g.Variable("gn_beta")}));
    const Params params = {{"gn_gamma", qv_test::Random({c.groups}, &rng)}, {"gn_beta", qv_test::Random({c.groups}, &rng)}};
    ExpectGpuMatchesCpu(g, params, {qv_test::Random(c.data, &rng)});
  }
}

TEST_CASE("GPU AdaptiveAvgPooling2D matches the CPU: uniform, uneven and overlapping cells", "[gpu]") {
  ExpectUnaryOp("_contrib_AdaptiveAvgPooling2D", {{"output_size", "3"}}, {2, 3, 12, 12});
  ExpectUnaryOp("_contrib_AdaptiveAvgPooling2D", {{"output_size", "6"}}, {1, 16, 28, 28});
  ExpectUnaryOp("_contrib_AdaptiveAvgPooling2D", {{"output_size", "(3, 4)"}}, {2, 2, 7, 10});
  ExpectUnaryOp("_contrib_AdaptiveAvgPooling2D", {}, {1, 4, 5, 6});
  ExpectUnaryOp("_contrib_AdaptiveAvgPooling2D", {{"output_size", "(7, 9)"}}, {1, 2, 3, 4});
}

TEST_CASE("GPU BilinearResize2D matches the CPU: both corner conventions, up, down, modes, like", "[gpu]") {
  for (const char* align : {"True", "False"}) {
    INFO("align_corners " << align);
    ExpectUnaryOp("_contrib_BilinearResize2D", {{"height", "64"}, {"width", "64"}, {"align_corners", align}},
                  {2, 3, 8, 8});
    ExpectUnaryOp("_contrib_BilinearResize2D", {{"height", "6"}, {"width", "4"}, {"align_corners", align}},
                  {1, 2, 17, 13});
    ExpectUnaryOp("_contrib_BilinearResize2D", {{"height", "1"}, {"width", "9"}, {"align_corners", align}},
                  {1, 2, 6, 7});
    ExpectUnaryOp("_contrib_BilinearResize2D", {{"height", "4"}, {"width", "3"}, {"align_corners", align}},
                  {1, 3, 1, 1});
    ExpectUnaryOp("_contrib_BilinearResize2D",
                  {{"mode", "odd_scale"}, {"scale_height", "2"}, {"scale_width", "0.5"}, {"align_corners", align}},
                  {1, 2, 5, 8});
    ExpectUnaryOp("_contrib_BilinearResize2D", {{"mode", "to_even_up"}, {"align_corners", align}}, {1, 2, 5, 6});
    GraphBuilder g;
    g.Output(g.Op("_contrib_BilinearResize2D", "op0", {{"mode", "like"}, {"align_corners", align}},
                  {g.Variable("data"), g.Variable("like")}));
    std::mt19937 rng(13);
    ExpectGpuMatchesCpu(g, {}, {qv_test::Random({2, 3, 6, 5}, &rng), qv_test::Random({1, 1, 11, 3}, &rng)});
  }
  ExpectUnaryOp("_contrib_BilinearResize2D", {{"height", "6"}, {"width", "6"}}, {1, 2, 6, 6});  // a copy
}

TEST_CASE("GPU stand-alone BatchNorm matches the CPU, with and without a fused ReLU", "[gpu]") {
  std::mt19937 rng(8);
  for (bool relu : {false, true})
    for (const char* fix_gamma : {"True", "False"}) {
      INFO("relu " << relu << ", fix_gamma " << fix_gamma);
      GraphBuilder g;
      const int data = g.Variable("data");
      int out = g.Op("BatchNorm", "bn", {{"eps", "0.001"}, {"fix_gamma", fix_gamma}},
                     {data, g.Variable("bn_gamma"), g.Variable("bn_beta"), g.Variable("bn_moving_mean"),
                      g.Variable("bn_moving_var")});
      if (relu) out = g.Op("relu", "bn_relu", {}, {out});
      g.Output(out);
      const Params params = {{"bn_gamma", qv_test::Random({4}, &rng)},
                             {"bn_beta", qv_test::Random({4}, &rng)},
                             {"bn_moving_mean", qv_test::Random({4}, &rng)},
                             {"bn_moving_var", qv_test::Random({4}, &rng, 0.5f, 1.5f)}};
      ExpectGpuMatchesCpu(g, params, {qv_test::Random({2, 4, 3, 5}, &rng)});
    }
}

TEST_CASE("GPU Deconvolution matches the CPU: stride, crop, adj, target_shape, groups, bias, BatchNorm + ReLU, 1-D",
          "[gpu]") {
  struct Case {
    AttrMap attrs;
    qv_ref::Shape x, weight;
    bool bias_and_bn;
  };
  const std::vector<Case> cases = {
      {{{"kernel", "(4, 4)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}, {"num_filter", "6"}}, {2, 5, 4, 3}, {5, 6, 4, 4}, true},
      {{{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"adj", "(1, 1)"}, {"num_filter", "4"}, {"no_bias", "False"}},
       {1, 3, 4, 5}, {3, 4, 3, 3}, false},
      {{{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"dilate", "(2, 1)"}, {"target_shape", "(10, 8)"}, {"num_filter", "4"},
        {"num_group", "2"}},
       {1, 6, 4, 4}, {6, 2, 3, 3}, false},
      {{{"kernel", "(4, 4)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}, {"num_filter", "8"}, {"num_group", "8"}},
       {2, 8, 5, 5}, {8, 1, 4, 4}, false},
      {{{"kernel", "(3,)"}, {"stride", "(2,)"}, {"pad", "(1,)"}, {"adj", "(1,)"}, {"num_filter", "4"}, {"no_bias", "False"}},
       {2, 3, 7}, {3, 4, 3}, false},  // 1-D
  };
  std::mt19937 rng(14);
  for (const Case& c : cases) {
    GraphBuilder g;
    std::vector<qv_test::Entry> inputs = {g.Variable("data"), g.Variable("deconv0_weight")};
    Params params = {{"deconv0_weight", qv_test::Random(c.weight, &rng)}};
    const int64_t filters = std::stoll(c.attrs.at("num_filter"));
    if (c.attrs.count("no_bias")) {
      inputs.push_back(g.Variable("deconv0_bias"));
      params["deconv0_bias"] = qv_test::Random({filters}, &rng);
    }
    int out = g.Op("Deconvolution", "deconv0", c.attrs, inputs);
    if (c.bias_and_bn) {
      out = g.Op("BatchNorm", "bn0", {{"eps", "1e-5"}, {"fix_gamma", "False"}},
                 {out, g.Variable("bn0_gamma"), g.Variable("bn0_beta"), g.Variable("bn0_moving_mean"),
                  g.Variable("bn0_moving_var")});
      out = g.Op("relu", "relu0", {}, {out});
      params["bn0_gamma"] = qv_test::Random({filters}, &rng);
      params["bn0_beta"] = qv_test::Random({filters}, &rng);
      params["bn0_moving_mean"] = qv_test::Random({filters}, &rng);
      params["bn0_moving_var"] = qv_test::Random({filters}, &rng, 0.5f, 1.5f);
    }
    g.Output(out);
    ExpectGpuMatchesCpu(g, params, {qv_test::Random(c.x, &rng)});
  }
}

TEST_CASE("GPU UpSampling matches the CPU: nearest (one input, concat, sum) and bilinear", "[gpu]") {
  std::mt19937 rng(15);
  ExpectUnaryOp("UpSampling", {{"scale", "3"}, {"sample_type", "nearest"}, {"num_args", "1"}}, {2, 3, 4, 5});
  for (const char* mode : {"concat", "sum"}) {
    INFO(mode);
    GraphBuilder g;
    g.Output(g.Op("UpSampling", "up0",
                  {{"scale", "2"}, {"sample_type", "nearest"}, {"num_args", "2"}, {"multi_input_mode", mode}},
                  {g.Variable("a"), g.Variable("b")}));
    ExpectGpuMatchesCpu(g, {}, {qv_test::Random({2, 3, 4, 6}, &rng), qv_test::Random({2, 3, 2, 3}, &rng)});
  }
  GraphBuilder g;
  g.Output(g.Op("UpSampling", "up0", {{"scale", "2"}, {"sample_type", "bilinear"}, {"num_args", "2"}, {"num_filter", "4"}},
                {g.Variable("data"), g.Variable("up0_weight")}));
  ExpectGpuMatchesCpu(g, {{"up0_weight", qv_test::Random({4, 1, 4, 4}, &rng)}}, {qv_test::Random({2, 4, 5, 3}, &rng)});
}

TEST_CASE("GPU Pad matches the CPU: constant, edge and reflect on 4-D and 5-D data", "[gpu]") {
  for (const char* mode : {"constant", "edge", "reflect"}) {
    ExpectUnaryOp("Pad", {{"mode", mode}, {"pad_width", "(0, 0, 0, 0, 2, 1, 0, 3)"}, {"constant_value", "0.5"}},
                  {2, 3, 4, 5});
    ExpectUnaryOp("Pad", {{"mode", mode}, {"pad_width", "(0, 0, 0, 0, 1, 2, 2, 0, 1, 1)"}}, {1, 2, 3, 4, 5});
  }
}

TEST_CASE("GPU zeros_like, ones_like and _arange match the CPU", "[gpu]") {
  ExpectUnaryOp("zeros_like", {}, {3, 4});
  ExpectUnaryOp("ones_like", {}, {3, 4});
  GraphBuilder g;
  const int data = g.Variable("data");
  const int range = g.Op("_arange", "range", {{"start", "1"}, {"stop", "7"}, {"step", "1.5"}, {"repeat", "2"}}, {});
  g.Output(g.Op("elemwise_add", "sum", {}, {data, range}));
  std::mt19937 rng(12);
  ExpectGpuMatchesCpu(g, {}, {qv_test::Random({8}, &rng)});
}

TEST_CASE("GPU topk, gather_nd and shape_array match the CPU", "[gpu]") {
  // Distinct values: the GPU orders ties by index, the CPU in MXNet's unstable order.
  qv_ref::Tensor x({2, 5, 700});
  for (int64_t i = 0; i < x.size(); ++i) x.data[i] = static_cast<float>((i * 7919) % x.size()) * 0.01f - 30.f;
  for (const char* axis : {"-1", "1", "None"})
    for (const char* ret : {"value", "indices", "mask"})
      for (const char* ascend : {"False", "True"}) {
        GraphBuilder g;
        g.Output(g.Op("topk", "topk", {{"axis", axis}, {"k", "4"}, {"ret_typ", ret}, {"is_ascend", ascend}},
                      {g.Variable("data")}));
        ExpectGpuMatchesCpu(g, {}, {x}, qv_test::Match::kExact);
      }
  GraphBuilder both;
  const int top = both.Op("topk", "topk", {{"k", "0"}, {"ret_typ", "both"}}, {both.Variable("data")});
  both.Output({top, 0});
  both.Output({top, 1});
  ExpectGpuMatchesCpu(both, {}, {x}, qv_test::Match::kExact);

  std::mt19937 rng(11);
  qv_ref::Tensor indices({2, 3, 4});
  indices.data = {0, 1, -1, 1, 0, 1, -2, 0, 1, 0, 0, 1, 2, 0, 4, -3, 1, 2, 3, 4, 0, -1, 2, 1};
  GraphBuilder gather;
  gather.Output(gather.Op("gather_nd", "gather", {}, {gather.Variable("data"), gather.Variable("indices")}));
  ExpectGpuMatchesCpu(gather, {}, {qv_test::Random({2, 5, 6}, &rng), indices}, qv_test::Match::kExact);
  ExpectUnaryOp("shape_array", {}, {2, 3, 4, 5});
}

TEST_CASE("GPU argsort and reverse match the CPU", "[gpu]") {
  qv_ref::Tensor x({3, 40});  // distinct values: the GPU orders ties by index, the CPU in MXNet's order
  for (int64_t i = 0; i < x.size(); ++i) x.data[i] = static_cast<float>((i * 37) % x.size()) * 0.5f - 20.f;
  for (const char* ascend : {"False", "True"}) {
    GraphBuilder g;
    g.Output(g.Op("argsort", "sort", {{"axis", "1"}, {"is_ascend", ascend}}, {g.Variable("data")}));
    ExpectGpuMatchesCpu(g, {}, {x}, qv_test::Match::kExact);
  }
  ExpectUnaryOp("reverse", {{"axis", "(0, 2)"}}, {3, 4, 5});
}

TEST_CASE("GPU ROIAlign matches the CPU: fixed and adaptive grids, position-sensitive, aligned", "[gpu]") {
  std::mt19937 rng(15);
  // Boxes inside, across and beyond the 12 x 14 map (at scale 0.5), smaller than a pixel, on both images.
  const qv_ref::Tensor rois({5, 5}, {0, 1.5f, 2, 14, 11.5f, 1, -3, -2, 6, 5, 1, 15, 12, 30, 25, 0, 8.2f, 6.1f, 8.4f, 6.3f,
                                     1, 0, 0, 27, 23});
  for (const bool sensitive : {false, true})
    for (const char* ratio : {"-1", "2"})
      for (const char* aligned : {"False", "True"}) {
        GraphBuilder g;
        g.Output(g.Op("_contrib_ROIAlign", "align",
                      {{"pooled_size", "(2, 3)"}, {"spatial_scale", "0.5"}, {"sample_ratio", ratio},
                       {"position_sensitive", sensitive ? "True" : "False"}, {"aligned", aligned}},
                      {g.Variable("data"), g.Variable("rois")}));
        ExpectGpuMatchesCpu(g, {}, {qv_test::Random({2, sensitive ? 12 : 4, 12, 14}, &rng), rois});
      }
}

TEST_CASE("GPU transformer operators match the CPU: LayerNorm, batch_dot, dot, interleaved attention, masks", "[gpu]") {
  std::mt19937 rng(14);
  GraphBuilder ln;
  ln.Output(ln.Op("LayerNorm", "ln", {{"axis", "1"}, {"eps", "1e-12"}},
                  {ln.Variable("data"), ln.Variable("ln_gamma"), ln.Variable("ln_beta")}));
  ExpectGpuMatchesCpu(ln, {{"ln_gamma", qv_test::Random({5}, &rng)}, {"ln_beta", qv_test::Random({5}, &rng)}},
                      {qv_test::Random({3, 5, 4}, &rng)});
  GraphBuilder bd;
  bd.Output(bd.Op("batch_dot", "bd", {{"transpose_a", "True"}, {"transpose_b", "True"}},
                  {bd.Variable("a"), bd.Variable("b")}));
  ExpectGpuMatchesCpu(bd, {}, {qv_test::Random({2, 5, 3}, &rng), qv_test::Random({2, 6, 5}, &rng)});
  GraphBuilder dot;
  dot.Output(dot.Op("dot", "dot", {{"transpose_a", "True"}}, {dot.Variable("a"), dot.Variable("b")}));
  ExpectGpuMatchesCpu(dot, {}, {qv_test::Random({5, 2, 3}, &rng), qv_test::Random({5, 4}, &rng)});
  // BERT's attention: qk, softmax over valid lengths, valatt.
  GraphBuilder att;
  const int qkv = att.Variable("qkv"), len = att.Variable("len");
  const int qk = att.Op("_contrib_interleaved_matmul_selfatt_qk", "qk", {{"heads", "2"}}, {qkv});
  const int sm = att.Op("softmax", "sm", {{"axis", "-1"}, {"use_length", "True"}}, {qk, len});
  att.Output(att.Op("_contrib_interleaved_matmul_selfatt_valatt", "va", {{"heads", "2"}}, {qkv, sm}));
  std::vector<float> lengths(24);
  for (size_t i = 0; i < lengths.size(); ++i) lengths[i] = static_cast<float>(i % 8) - 0.5f;  // -0.5 .. 6.5
  ExpectGpuMatchesCpu(att, {}, {qv_test::Random({6, 2, 24}, &rng), qv_ref::Tensor({4, 6}, lengths)});
  GraphBuilder mask;
  mask.Output(mask.Op("SequenceMask", "mask", {{"use_sequence_length", "True"}, {"axis", "1"}, {"value", "-1"}},
                      {mask.Variable("data"), mask.Variable("len")}));
  ExpectGpuMatchesCpu(mask, {}, {qv_test::Random({3, 5, 2}, &rng), qv_ref::Tensor({3}, {4.f, 0.f, 2.5f})});
  ExpectUnaryOp("_contrib_div_sqrt_dim", {}, {3, 8});
  ExpectUnaryOp("Cast", {{"dtype", "int32"}}, {3, 8});
  ExpectUnaryOp("_contrib_arange_like", {{"axis", "1"}, {"start", "2"}, {"repeat", "2"}}, {3, 8});
}

TEST_CASE("GPU _zeros and _ones match the CPU", "[gpu]") {
  for (const std::string op : {"_zeros", "_ones"}) {
    INFO(op);
    GraphBuilder g;
    g.Output(g.Op("elemwise_add", "sum", {}, {g.Variable("data"), g.Op(op, "fill", {{"shape", "(3, 4)"}}, {})}));
    std::mt19937 rng(14);
    ExpectGpuMatchesCpu(g, {}, {qv_test::Random({3, 4}, &rng)});
  }
}

TEST_CASE("GPU Embedding and SequenceLast match the CPU", "[gpu]") {
  std::mt19937 rng(15);
  GraphBuilder emb;
  emb.Output(emb.Op("Embedding", "emb", {{"input_dim", "7"}, {"output_dim", "5"}}, {emb.Variable("data"), emb.Variable("w")}));
  // Ids past both ends and fractional ones: clipped and truncated alike.
  ExpectGpuMatchesCpu(emb, {{"w", qv_test::Random({7, 5}, &rng)}}, {qv_test::Random({3, 4}, &rng, -2.f, 9.f)});
  for (const std::string axis : {"0", "1"}) {
    INFO("axis " << axis);
    GraphBuilder last;
    last.Output(last.Op("SequenceLast", "last", {{"axis", axis}}, {last.Variable("data")}));
    ExpectGpuMatchesCpu(last, {}, {qv_test::Random({4, 3, 5}, &rng)});
    GraphBuilder lengths;
    lengths.Output(lengths.Op("SequenceLast", "last", {{"axis", axis}, {"use_sequence_length", "True"}},
                              {lengths.Variable("data"), lengths.Variable("sequence_length")}));
    const int64_t batch = axis == "0" ? 3 : 4;
    ExpectGpuMatchesCpu(lengths, {}, {qv_test::Random({4, 3, 5}, &rng), qv_test::Random({batch}, &rng, -1.f, 6.f)});
  }
}

TEST_CASE("GPU RNN matches the CPU: LSTM, GRU, vanilla, layers, directions, states", "[gpu]") {
  std::mt19937 rng(16);
  struct Case {
    std::string mode;
    int64_t layers, directions, gates;
    bool zero_state;
  };
  for (const Case& c : std::vector<Case>{{"lstm", 2, 2, 4, false},
                                         {"gru", 3, 1, 3, false},
                                         {"rnn_tanh", 1, 2, 1, false},
                                         {"rnn_relu", 2, 1, 1, false},
                                         {"lstm", 1, 1, 4, true}}) {
    INFO(c.mode << " layers " << c.layers << " directions " << c.directions);
    const int64_t T = 6, N = 3, I = 5, H = 8;
    int64_t count = 0;
    for (int64_t l = 0; l < c.layers; ++l) count += c.directions * c.gates * H * ((l == 0 ? I : c.directions * H) + H + 2);
    const bool lstm = c.mode == "lstm";
    GraphBuilder g;
    std::vector<qv_test::Entry> ins = {g.Variable("data"), g.Variable("params")};
    const std::string zeros = "(" + std::to_string(c.layers * c.directions) + ", 0, 8)";
    for (const char* name : {"h0", "c0"})
      if (std::string(name) == "h0" || lstm)
        ins.push_back(c.zero_state ? g.Op("_zeros", name, {{"shape", zeros}}, {}) : g.Variable(name));
    const AttrMap attrs = {{"mode", c.mode},
                           {"num_layers", std::to_string(c.layers)},
                           {"state_size", "8"},
                           {"bidirectional", c.directions == 2 ? "True" : "False"},
                           {"state_outputs", "True"}};
    const int rnn = g.Op("RNN", "rnn", attrs, ins);
    for (int i = 0; i < (lstm ? 3 : 2); ++i) g.Output({rnn, i});
    std::vector<Tensor> data = {qv_test::Random({T, N, I}, &rng)};
    if (!c.zero_state)
      for (int i = 0; i < (lstm ? 2 : 1); ++i) data.push_back(qv_test::Random({c.layers * c.directions, N, H}, &rng));
    ExpectGpuMatchesCpu(g, {{"params", qv_test::Random({count}, &rng, -0.5f, 0.5f)}}, data);
  }
}

TEST_CASE("A small GPU network (FC, ReLU, FC, softmax) matches the CPU", "[gpu]") {
  std::mt19937 rng(13);
  GraphBuilder g;
  const int data = g.Variable("data");
  const int fc1 =
      g.Op("FullyConnected", "fc1", {{"num_hidden", "64"}}, {data, g.Variable("fc1_weight"), g.Variable("fc1_bias")});
  const int act = g.Op("Activation", "relu1", {{"act_type", "relu"}}, {fc1});
  const int fc2 =
      g.Op("FullyConnected", "fc2", {{"num_hidden", "10"}}, {act, g.Variable("fc2_weight"), g.Variable("fc2_bias")});
  g.Output(g.Op("softmax", "prob", {}, {fc2}));
  const Params params = {{"fc1_weight", qv_test::Random({64, 3 * 8 * 8}, &rng, -0.1f, 0.1f)},
                         {"fc1_bias", qv_test::Random({64}, &rng)},
                         {"fc2_weight", qv_test::Random({10, 64}, &rng, -0.1f, 0.1f)},
                         {"fc2_bias", qv_test::Random({10}, &rng)}};
  ExpectGpuMatchesCpu(g, params, {qv_test::Random({5, 3, 8, 8}, &rng)});
}

}  // namespace

namespace {

// Runs `op` on int32 `ids` (an array on `device_type`) and returns both outputs of the tokens graph.
std::vector<std::vector<float>> RunTokens(QvCachedOpHandle op, const std::vector<int32_t>& ids, int device_type) {
  const int64_t shape[] = {static_cast<int64_t>(ids.size())};
  QvNDArrayHandle in = nullptr;
  REQUIRE(QvNDArrayCreate(shape, 1, device_type, 0, QV_INT32, &in) == QV_OK);
  REQUIRE(QvNDArraySyncCopyFromCPU(in, ids.data(), ids.size() * sizeof(int32_t)) == QV_OK);
  uint32_t n = 0;
  QvNDArrayHandle* outs = nullptr;
  REQUIRE(QvInvokeAsync(op, 1, &in, &n, &outs) == QV_OK);
  REQUIRE(n == 2);
  std::vector<std::vector<float>> results = {std::vector<float>(ids.size() * 3), std::vector<float>(ids.size())};
  for (uint32_t k = 0; k < n; ++k) {
    REQUIRE(QvNDArraySyncCopyToCPU(outs[k], results[k].data(), results[k].size() * sizeof(float)) == QV_OK);
    QvNDArrayFree(outs[k]);
  }
  QvNDArrayFree(in);
  return results;
}

}  // namespace

TEST_CASE("GPU int32 inputs are converted on the device and compute as on the CPU", "[gpu]") {
  // tokens (declared int32) -> Embedding (7 x 3) and -> _div_scalar(3), an integer division in MXNet.
  const std::string json = R"({"nodes": [
    {"op": "null", "name": "tokens", "attrs": {"__dtype__": "4"}, "inputs": []},
    {"op": "null", "name": "emb_weight", "inputs": []},
    {"op": "Embedding", "name": "emb", "attrs": {"input_dim": "7", "output_dim": "3"}, "inputs": [[0, 0, 0], [1, 0, 0]]},
    {"op": "_div_scalar", "name": "third", "attrs": {"scalar": "3"}, "inputs": [[0, 0, 0]]}],
    "arg_nodes": [0, 1], "heads": [[2, 0, 0], [3, 0, 0]]})";
  std::mt19937 rng(21);
  const Params params = {{"emb_weight", qv_test::Random({7, 3}, &rng)}};
  QvSymbolHandle sym = nullptr;
  REQUIRE(QvSymbolCreateFromJSON(json.c_str(), &sym) == QV_OK);
  QvCachedOpHandle cpu = nullptr, gpu = nullptr;
  REQUIRE(qv_test::CreateCachedOp(sym, params, {}, 1, &cpu) == QV_OK);
  REQUIRE(qv_test::CreateCachedOp(sym, params, {{"device", "gpu(0)"}}, 1, &gpu) == QV_OK);
  const std::vector<int32_t> ids = {0, 6, 9, -1, 3, -8, 2, 100000};
  const auto want = RunTokens(cpu, ids, QV_CPU);
  CHECK(want[1] == std::vector<float>{0, 2, 3, 0, 1, -2, 0, 33333});
  CHECK(RunTokens(gpu, ids, QV_GPU) == want);  // ids on the device
  CHECK(RunTokens(gpu, ids, QV_CPU) == want);  // ids staged from the host
  QvFreeCachedOp(gpu);
  QvFreeCachedOp(cpu);
  QvSymbolFree(sym);
}
