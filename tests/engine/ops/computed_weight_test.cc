// Convolution and FullyConnected whose weight (and bias) are values the graph computes, not parameters:
// SiamRPN's depthwise cross-correlation (the template branch's features, reshaped, are the weight that
// slides over the search branch's), dense and grouped convolutions with a fused residual sum and ReLU,
// and FullyConnected over 2-D, flattened 4-D and 3-D data. Each against the plain reference on the same
// values; each graph runs twice with other weights, which must not reuse the first run's packing.
#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

// The reference's weight: the value fed as `w` after the graph's `_mul_scalar` by 2.
Tensor Doubled(Tensor t) {
  for (float& v : t.data) v *= 2;
  return t;
}

Tensor Relu(Tensor t) {
  for (float& v : t.data) v = v > 0 ? v : 0;
  return t;
}

Tensor Sum(Tensor a, const Tensor& b) {
  for (size_t i = 0; i < a.data.size(); ++i) a.data[i] += b.data[i];
  return a;
}

}  // namespace

TEST_CASE("SiamRPN's depthwise cross-correlation: the template's features are the convolution's weight",
          "[ops][convolution][computed_weight]") {
  // DepthwiseXCorr as GluonCV exports it: search (1, C, H, W) and kernel (1, C, k, k) from two branches,
  // the kernel reshaped to (C, 1, k, k), one group per channel, no bias.
  for (const int64_t channels : {int64_t{16}, int64_t{20}}) {
    const std::string what = "depthwise cross-correlation over " + std::to_string(channels) + " channels";
    RunCase(what, [&] {
      GraphBuilder g;
      const int search = g.Variable("search"), templ = g.Variable("template");
      const int kernel = g.Op("Reshape", "kernel", {{"shape", Tuple({channels, 1, 4, 4})}}, {templ});
      g.Output(g.Op("Convolution", "xcorr",
                    {{"kernel", "[4, 4]"}, {"no_bias", "True"}, {"num_filter", std::to_string(channels)},
                     {"num_group", std::to_string(channels)}},
                    {search, kernel}));
      CompiledGraph net(g.ToJson(), {});
      REQUIRE(net.InputNames() == std::vector<std::string>{"search", "template"});
      const ConvParams p = MakeConv(4, 4, 1, 1, 0, 0, 1, 1, channels);
      for (unsigned seed : {11u, 12u}) {
        const Tensor x = RandomTensor({1, channels, 12, 11}, seed), z = RandomTensor({1, channels, 4, 4}, seed + 10);
        Tensor w = z;
        w.shape = {channels, 1, 4, 4};
        ExpectClose(net.Run({x, z}).at(0), qv_ref::Convolution(x, w, nullptr, p), what + ", seed " + std::to_string(seed));
      }
    });
  }
}

TEST_CASE("Convolution with a computed weight and bias: dense, grouped, with a fused residual sum and ReLU",
          "[ops][convolution][computed_weight]") {
  struct Case {
    Shape x;
    int64_t filters;
    ConvParams p;
    bool bias, residual_relu;
  };
  const std::vector<Case> cases = {
      {{2, 5, 9, 8}, 12, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1), true, false},
      {{1, 16, 7, 7}, 32, MakeConv(3, 3, 2, 2, 1, 1, 1, 1, 1), false, false},
      {{2, 8, 9, 9}, 12, MakeConv(3, 3, 1, 1, 2, 2, 2, 2, 4), true, false},   // 4 groups, dilated
      {{1, 16, 8, 8}, 16, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1), true, true},   // + residual, then ReLU
      {{2, 3, 10, 10}, 8, MakeConv(5, 5, 1, 1, 2, 2, 1, 1, 1), false, true},  // a first layer's plain input
  };
  for (const Case& c : cases) {
    const std::string what = "Convolution x=" + ShapeStr(c.x) + " filters=" + std::to_string(c.filters) + " " +
                             Describe(c.p) + (c.bias ? " bias" : "") + (c.residual_relu ? " + residual, relu" : "");
    RunCase(what, [&] {
      // data, w and b are the graph's inputs; the weight is w * 2, the bias b reshaped (a weight-like
      // input straight from a variable is a parameter, which the op would miss).
      GraphBuilder g;
      const int data = g.Variable("data"), w = g.Variable("w");
      std::vector<qv_test::Entry> inputs = {data, g.Op("_mul_scalar", "weight", {{"scalar", "2"}}, {w})};
      if (c.bias) inputs.push_back(g.Op("Reshape", "bias", {{"shape", "(-1,)"}}, {g.Variable("b")}));
      int out = g.Op("Convolution", "conv", Net::ConvAttrs(c.p, c.filters, c.bias), inputs);
      if (c.residual_relu) {
        out = g.Op("elemwise_add", "sum", {}, {out, g.Variable("residual")});
        out = g.Op("Activation", "relu", {{"act_type", "relu"}}, {out});
      }
      g.Output(out);
      CompiledGraph net(g.ToJson(), {});
      const Shape wshape = {c.filters, c.x[1] / c.p.num_group, c.p.kernel_h, c.p.kernel_w};
      for (unsigned seed : {21u, 22u}) {
        std::mt19937 rng(seed);
        const Tensor x = qv_test::Random(c.x, &rng), wv = qv_test::Random(wshape, &rng, -0.3f, 0.3f);
        const Tensor bv = qv_test::Random({c.filters}, &rng);
        Tensor want = qv_ref::Convolution(x, Doubled(wv), c.bias ? &bv : nullptr, c.p);
        std::vector<Tensor> feed = {x, wv};
        if (c.bias) feed.push_back(bv);
        if (c.residual_relu) {
          const Tensor residual = qv_test::Random(want.shape, &rng);
          feed.push_back(residual);
          want = Relu(Sum(want, residual));
        }
        ExpectClose(net.Run(feed).at(0), want, what + ", seed " + std::to_string(seed));
      }
    });
  }
}

TEST_CASE("FullyConnected with a computed weight and bias: 2-D, flattened 4-D and 3-D data",
          "[ops][fully_connected][computed_weight]") {
  struct Case {
    Shape x;
    int64_t hidden;
    bool flatten, bias;
  };
  const std::vector<Case> cases = {
      {{3, 13}, 7, true, true},
      {{2, 5, 4, 4}, 10, true, false},  // a parameter's weight would take the 4-D view of the data
      {{2, 3, 6}, 9, false, true},
  };
  for (const Case& c : cases) {
    const std::string what = "FullyConnected x=" + ShapeStr(c.x) + " num_hidden=" + std::to_string(c.hidden) +
                             (c.flatten ? " flatten" : "") + (c.bias ? " bias" : "");
    RunCase(what, [&] {
      const int64_t k = c.flatten ? qv_ref::ElementCount(c.x) / c.x[0] : c.x.back();
      // The weight arrives flat and is reshaped in the graph; the bias is a ReLU of an input.
      GraphBuilder g;
      const int data = g.Variable("data");
      std::vector<qv_test::Entry> inputs = {
          data, g.Op("Reshape", "weight", {{"shape", Tuple({c.hidden, -1})}}, {g.Variable("w")})};
      if (c.bias) inputs.push_back(g.Op("Activation", "bias", {{"act_type", "relu"}}, {g.Variable("b")}));
      g.Output(g.Op("FullyConnected", "fc",
                    {{"num_hidden", std::to_string(c.hidden)}, {"no_bias", c.bias ? "False" : "True"},
                     {"flatten", c.flatten ? "True" : "False"}},
                    inputs));
      CompiledGraph net(g.ToJson(), {});
      for (unsigned seed : {31u, 32u}) {
        std::mt19937 rng(seed);
        const Tensor x = qv_test::Random(c.x, &rng), wv = qv_test::Random({c.hidden * k}, &rng);
        const Tensor bv = qv_test::Random({c.hidden}, &rng);
        Tensor w = wv;
        w.shape = {c.hidden, k};
        const Tensor b = Relu(bv);
        std::vector<Tensor> feed = {x, wv};
        if (c.bias) feed.push_back(bv);
        ExpectClose(net.Run(feed).at(0), qv_ref::FullyConnected(x, w, c.bias ? &b : nullptr, c.flatten),
                    what + ", seed " + std::to_string(seed));
      }
    });
  }
}

TEST_CASE("A Convolution may mix a computed weight with a parameter bias", "[ops][convolution][computed_weight]") {
  Net net(41);
  const ConvParams p = MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1);
  net.Param("conv_bias", {6});
  const int data = net.g.Variable("data"), w = net.g.Variable("w");
  const int weight = net.g.Op("Reshape", "weight", {{"shape", "(6, 4, 3, 3)"}}, {w});
  net.g.Output(net.g.Op("Convolution", "conv", Net::ConvAttrs(p, 6, true), {data, weight, net.g.Variable("conv_bias")}));
  CompiledGraph compiled(net.g.ToJson(), net.params);
  REQUIRE(compiled.InputNames() == std::vector<std::string>{"data", "w"});
  const Tensor x = qv_test::Random({2, 4, 7, 7}, &net.rng), wv = qv_test::Random({6, 36}, &net.rng);
  const Tensor w4d(Shape{6, 4, 3, 3}, wv.data);
  ExpectClose(compiled.Run({x, wv}).at(0), qv_ref::Convolution(x, w4d, &net.params.at("conv_bias"), p),
              "computed weight, parameter bias");
}
