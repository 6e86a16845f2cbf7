// The cuDNN convolution against the CPU backend's: the same graph compiled for cpu(0) and for gpu(0),
// run on the same seeded random inputs, every output within qv_test::Compare's FP32 bound
// (|gpu - cpu| <= 1e-5 * max(1, max |cpu|)). Covers the attributes (stride, padding, dilation, groups,
// depthwise, 1x1, the 7x7 stem, 3-D), the fused post-ops (ReLU after a bias and without one, clip from 0,
// the residual sum, BatchNorm folded in) and the post-ops left to kernels of their own.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "conv_graphs.h"
#include "gpu_vs_cpu.h"
#include "quiver/c_api.h"
#include "support/single_op.h"

namespace {

using qv_test::AddBatchNorm;
using qv_test::AddConv;
using qv_test::AttrMap;
using qv_test::Conv;
using qv_test::ExpectGpuMatchesCpu;
using qv_test::GraphBuilder;
using qv_test::Params;

TEST_CASE("GPU Convolution matches the CPU: bias or none, stride, padding, dilation, groups, depthwise, 1x1, 7x7",
          "[gpu]") {
  struct Case {
    qv_ref::Shape data;
    Conv conv;
  };
  const std::vector<Case> cases = {
      {{2, 3, 9, 10}, {8, 3, 3, {}}},
      {{2, 3, 9, 10}, {8, 3, 3, {{"no_bias", "True"}}}},
      {{1, 8, 16, 16}, {16, 3, 3, {{"stride", "(2, 2)"}, {"pad", "(1, 1)"}}}},
      {{4, 8, 12, 12}, {8, 3, 3, {{"pad", "(2, 2)"}, {"dilate", "(2, 2)"}}}},
      {{2, 8, 10, 10}, {12, 3, 3, {{"pad", "(1, 1)"}, {"num_group", "2"}}}},
      {{2, 16, 10, 10}, {16, 3, 3, {{"pad", "(1, 1)"}, {"num_group", "16"}, {"no_bias", "True"}}}},
      {{4, 16, 12, 12}, {16, 3, 3, {{"stride", "(2, 2)"}, {"pad", "(1, 1)"}, {"num_group", "16"}}}},
      {{1, 32, 7, 7}, {64, 1, 1, {}}},
      {{4, 32, 7, 7}, {64, 1, 1, {{"no_bias", "True"}}}},
      {{1, 3, 224, 224}, {64, 7, 7, {{"stride", "(2, 2)"}, {"pad", "(3, 3)"}, {"no_bias", "True"}}}},
      {{4, 3, 32, 32}, {16, 7, 7, {{"stride", "(2, 2)"}, {"pad", "(3, 3)"}}}},
      {{2, 4, 11, 9}, {6, 3, 1, {{"stride", "(2, 1)"}, {"pad", "(1, 0)"}}}},
      {{1, 4, 5, 5}, {3, 5, 5, {}}},
  };
  std::mt19937 rng(21);
  for (const Case& c : cases) {
    INFO("data " << qv_ref::ShapeToString(c.data) << ", kernel " << c.conv.kh << "x" << c.conv.kw << ", case "
                 << (&c - cases.data()));
    GraphBuilder g;
    Params params;
    g.Output(AddConv(g, params, rng, "conv", g.Variable("data"), c.data[1], c.conv));
    ExpectGpuMatchesCpu(g, params, {qv_test::Random(c.data, &rng)});
  }
}

TEST_CASE("GPU 3-D Convolution matches the CPU: stride, padding, dilation, groups, bias, a 3-channel stem",
          "[gpu]") {
  struct Case {
    qv_ref::Shape data, weight;
    AttrMap attrs;
  };
  const std::vector<Case> cases = {
      {{1, 3, 8, 16, 16}, {8, 3, 5, 7, 7}, {{"kernel", "(5, 7, 7)"}, {"stride", "(2, 2, 2)"}, {"pad", "(2, 3, 3)"},
                                             {"no_bias", "True"}}},
      {{2, 8, 4, 6, 5}, {8, 8, 3, 1, 1}, {{"kernel", "(3, 1, 1)"}, {"pad", "(1, 0, 0)"}}},
      {{2, 6, 5, 5, 5}, {6, 2, 3, 3, 3}, {{"kernel", "(3, 3, 3)"}, {"pad", "(2, 1, 2)"}, {"dilate", "(2, 1, 2)"},
                                           {"num_group", "3"}}},
  };
  std::mt19937 rng(22);
  for (const Case& c : cases) {
    INFO("data " << qv_ref::ShapeToString(c.data) << ", case " << (&c - cases.data()));
    AttrMap attrs = c.attrs;
    attrs["num_filter"] = std::to_string(c.weight[0]);
    const bool bias = attrs.count("no_bias") == 0;
    GraphBuilder g;
    std::vector<qv_test::Entry> inputs = {g.Variable("data"), g.Variable("conv_weight")};
    Params params = {{"conv_weight", qv_test::Random(c.weight, &rng, -0.5f, 0.5f)}};
    if (bias) {
      inputs.push_back(g.Variable("conv_bias"));
      params["conv_bias"] = qv_test::Random({c.weight[0]}, &rng);
    }
    g.Output(g.Op("Convolution", "conv", attrs, inputs));
    ExpectGpuMatchesCpu(g, params, {qv_test::Random(c.data, &rng)});
  }
}

TEST_CASE("GPU Convolution with fused activations matches the CPU: ReLU, relu6, and clips and leaky ReLU it leaves",
          "[gpu]") {
  struct Case {
    std::string op;
    AttrMap attrs;
    bool bias;
  };
  const std::vector<Case> cases = {
      {"relu", {}, true},
      {"relu", {}, false},
      {"Activation", {{"act_type", "relu"}}, true},
      {"clip", {{"a_min", "0"}, {"a_max", "6"}}, true},
      {"clip", {{"a_min", "0"}, {"a_max", "6"}}, false},
      {"clip", {{"a_min", "-1"}, {"a_max", "2"}}, true},
      {"LeakyReLU", {{"act_type", "leaky"}, {"slope", "0.1"}}, true},
  };
  std::mt19937 rng(22);
  for (const Case& c : cases) {
    INFO(c.op << ", bias " << c.bias << ", case " << (&c - cases.data()));
    GraphBuilder g;
    Params params;
    AttrMap extra = {{"pad", "(1, 1)"}};
    if (!c.bias) extra["no_bias"] = "True";
    const int conv = AddConv(g, params, rng, "conv", g.Variable("data"), 8, {16, 3, 3, extra});
    // Activations then stacked: a second one on a convolution is left to its own kernel.
    const int act = g.Op(c.op, "act", c.attrs, {conv});
    g.Output(g.Op("relu", "act2", {}, {act}));
    // Inputs in [-3, 3): outputs reach past 6, so the clips bite.
    ExpectGpuMatchesCpu(g, params, {qv_test::Random({2, 8, 9, 9}, &rng, -3.f, 3.f)});
  }
}

TEST_CASE("GPU Convolution + BatchNorm (folded) + ReLU matches the CPU, at batch 1 and 4", "[gpu]") {
  std::mt19937 rng(23);
  for (int64_t batch : {1, 4})
    for (bool bias : {false, true}) {
      INFO("batch " << batch << ", conv bias " << bias);
      GraphBuilder g;
      Params params;
      AttrMap extra = {{"stride", "(2, 2)"}, {"pad", "(1, 1)"}};
      if (!bias) extra["no_bias"] = "True";
      const int conv = AddConv(g, params, rng, "conv", g.Variable("data"), 16, {32, 3, 3, extra});
      const int bn = AddBatchNorm(g, params, rng, "bn", conv, 32);
      g.Output(g.Op("Activation", "relu", {{"act_type", "relu"}}, {bn}));
      ExpectGpuMatchesCpu(g, params, {qv_test::Random({batch, 16, 14, 14}, &rng)});
    }
}

// ResNet's blocks: the identity shortcut is the block's input, the projection shortcut a strided 1x1
// convolution's output.
TEST_CASE("GPU residual blocks (conv + BN + add + ReLU) match the CPU", "[gpu]") {
  std::mt19937 rng(24);
  for (bool projection : {false, true})
    for (int64_t batch : {1, 4}) {
      INFO("projection " << projection << ", batch " << batch);
      GraphBuilder g;
      Params params;
      const int64_t in_channels = 16, channels = projection ? 32 : 16;
      g.Output(qv_test::AddResidualBlock(g, params, rng, "block", g.Variable("data"), in_channels, channels,
                                         projection));
      ExpectGpuMatchesCpu(g, params, {qv_test::Random({batch, in_channels, 12, 12}, &rng)});
    }
}

TEST_CASE("GPU residual sums without an activation, and after one, match the CPU", "[gpu]") {
  std::mt19937 rng(25);
  for (bool relu_first : {false, true})
    for (bool bias : {false, true}) {
      INFO("relu before the add " << relu_first << ", bias " << bias);
      GraphBuilder g;
      Params params;
      const int data = g.Variable("data"), other = g.Variable("other");
      AttrMap extra = {{"pad", "(1, 1)"}};
      if (!bias) extra["no_bias"] = "True";
      int x = AddConv(g, params, rng, "conv", data, 8, {8, 3, 3, extra});
      // A ReLU before the sum keeps the sum out of the convolution (cuDNN adds before activating).
      if (relu_first) x = g.Op("relu", "relu", {}, {x});
      g.Output(g.Op("elemwise_add", "add", {}, {other, x}));
      ExpectGpuMatchesCpu(g, params, {qv_test::Random({2, 8, 6, 7}, &rng), qv_test::Random({2, 8, 6, 7}, &rng)});
    }
}

// The residual here is computed on the GPU and read again afterwards (it is a graph output), so the
// plan copies it into the fused convolution's output instead of sharing its buffer: that copy must
// see the residual's producer finished.
TEST_CASE("GPU fused residual sum whose residual is also read elsewhere matches the CPU", "[gpu]") {
  std::mt19937 rng(26);
  GraphBuilder g;
  Params params;
  const int data = g.Variable("data");
  const int residual = AddConv(g, params, rng, "sc", data, 8, {16, 1, 1, {}});
  const int x = AddConv(g, params, rng, "conv", data, 8, {16, 3, 3, {{"pad", "(1, 1)"}}});
  g.Output(g.Op("relu", "relu", {}, {g.Op("elemwise_add", "add", {}, {x, residual})}));
  g.Output(residual);
  ExpectGpuMatchesCpu(g, params, {qv_test::Random({2, 8, 32, 32}, &rng)});
}

TEST_CASE("GPU Convolution and FullyConnected with a weight and bias the graph computes match the CPU", "[gpu]") {
  std::mt19937 rng(27);
  {
    INFO("SiamRPN's depthwise cross-correlation: the template's features reshaped into the weight");
    GraphBuilder g;
    const int search = g.Variable("search"), templ = g.Variable("template");
    const int kernel = g.Op("Reshape", "kernel", {{"shape", "(24, 1, 4, 4)"}}, {templ});
    g.Output(g.Op("Convolution", "xcorr",
                  {{"kernel", "[4, 4]"}, {"no_bias", "True"}, {"num_filter", "24"}, {"num_group", "24"}},
                  {search, kernel}));
    ExpectGpuMatchesCpu(g, {}, {qv_test::Random({1, 24, 12, 12}, &rng), qv_test::Random({1, 24, 4, 4}, &rng)});
  }
  {
    INFO("computed weight and bias, a residual sum and a ReLU fused (cuDNN's fused call)");
    GraphBuilder g;
    const int data = g.Variable("data"), w = g.Variable("w"), b = g.Variable("b"), residual = g.Variable("residual");
    const int weight = g.Op("_mul_scalar", "weight", {{"scalar", "0.5"}}, {w});
    // A weight-like input straight from a variable is a parameter: the bias is reshaped to be a value.
    const int bias = g.Op("Reshape", "bias", {{"shape", "(-1,)"}}, {b});
    const int conv = g.Op("Convolution", "conv", {{"kernel", "(3, 3)"}, {"num_filter", "8"}, {"pad", "(1, 1)"}},
                          {data, weight, bias});
    const int sum = g.Op("elemwise_add", "sum", {}, {conv, residual});
    g.Output(g.Op("Activation", "relu", {{"act_type", "relu"}}, {sum}));
    ExpectGpuMatchesCpu(g, {}, {qv_test::Random({2, 4, 7, 7}, &rng), qv_test::Random({8, 4, 3, 3}, &rng),
                                qv_test::Random({8}, &rng), qv_test::Random({2, 8, 7, 7}, &rng)});
  }
  {
    INFO("FullyConnected: a computed weight with a parameter bias, then both computed with a fused ReLU");
    for (bool computed_bias : {false, true}) {
      GraphBuilder g;
      const int data = g.Variable("data"), w = g.Variable("w"), b = g.Variable(computed_bias ? "b" : "fc_bias");
      const int weight = g.Op("Reshape", "weight", {{"shape", "(6, -1)"}}, {w});
      const int bias = computed_bias ? g.Op("Reshape", "bias", {{"shape", "(-1,)"}}, {b}) : b;
      const int fc = g.Op("FullyConnected", "fc", {{"num_hidden", "6"}}, {data, weight, bias});
      g.Output(computed_bias ? g.Op("Activation", "relu", {{"act_type", "relu"}}, {fc}) : fc);
      Params params;
      if (!computed_bias) params["fc_bias"] = qv_test::Random({6}, &rng);
      std::vector<qv_ref::Tensor> inputs = {qv_test::Random({3, 2, 5}, &rng), qv_test::Random({60}, &rng)};
      if (computed_bias) inputs.push_back(qv_test::Random({6}, &rng));
      ExpectGpuMatchesCpu(g, params, inputs);
    }
  }
}

}  // namespace
