// clip and Gluon's relu6 (clip 0..6), alone and fused into (depthwise) convolutions.
#include <algorithm>

#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

Tensor RefClip(const Tensor& x, float lo, float hi) {
  Tensor y = x;
  for (float& v : y.data) v = v < lo ? lo : (v > hi ? hi : v);
  return y;
}

}  // namespace

TEST_CASE("clip matches the reference, relu6 included", "[ops][clip]") {
  struct Case {
    Shape x;
    std::string a_min, a_max;
    float lo, hi;
  };
  const std::vector<Case> cases = {
      {{2, 5, 7, 9}, "0", "6", 0.f, 6.f},          // relu6 as mobilenet v2 exports it
      {{1, 13, 4, 4}, "-0.5", "1.5", -0.5f, 1.5f},
      {{3, 7}, "-1e+30", "0.25", -1e30f, 0.25f},
      {{4}, "2", "2", 2.f, 2.f},                    // a_min == a_max: a constant
  };
  unsigned seed = 10;
  for (const Case& c : cases) {
    const Tensor x = RandomTensor(c.x, seed++, -9.f, 9.f);
    const std::string what = "clip " + c.a_min + ".." + c.a_max + " x=" + qv_ref::ShapeToString(c.x);
    ExpectClose(RunUnary("clip", {{"a_min", c.a_min}, {"a_max", c.a_max}}, x), RefClip(x, c.lo, c.hi), what);
  }
}

TEST_CASE("clip refuses bad bounds, naming the node", "[ops][clip]") {
  const Tensor x = RandomTensor({1, 3}, 1);
  ExpectMessage(FailureOf([&] { RunUnary("clip", {{"a_min", "1"}, {"a_max", "0"}}, x); }), "op0",
                {"a_min", "greater than a_max"});
  ExpectMessage(FailureOf([&] { RunUnary("clip", {{"a_min", "0"}}, x); }), "op0", {"a_max", "missing"});
  ExpectMessage(FailureOf([&] { RunUnary("clip", {{"a_min", "zero"}, {"a_max", "6"}}, x); }), "op0",
                {"a_min", "zero"});
}

TEST_CASE("Convolution -> BatchNorm -> relu6, depthwise and not, fused like mobilenet v2", "[ops][clip][fusion]") {
  struct Case {
    Shape x;
    int64_t filters, groups, stride;
  };
  const std::vector<Case> cases = {
      {{1, 16, 9, 9}, 16, 16, 1},   // depthwise
      {{2, 24, 8, 7}, 24, 24, 2},   // depthwise, stride 2
      {{2, 13, 7, 7}, 13, 13, 1},   // depthwise, channels not a multiple of the SIMD block
      {{1, 8, 6, 6}, 20, 1, 1},     // pointwise expansion
      {{1, 12, 5, 5}, 24, 4, 1},    // grouped
  };
  unsigned seed = 40;
  for (const Case& c : cases) {
    std::mt19937 rng(seed++);
    std::map<std::string, Tensor> params;
    params["c_weight"] = qv_test::Random({c.filters, c.x[1] / c.groups, 3, 3}, &rng, -2.f, 2.f);
    params["bn_gamma"] = qv_test::Random({c.filters}, &rng, 0.5f, 1.5f);
    params["bn_beta"] = qv_test::Random({c.filters}, &rng, -0.5f, 3.f);
    params["bn_moving_mean"] = qv_test::Random({c.filters}, &rng, -0.5f, 0.5f);
    params["bn_moving_var"] = qv_test::Random({c.filters}, &rng, 0.25f, 2.f);
    GraphBuilder g;
    const int data = g.Variable("data");
    const int conv = g.Op("Convolution", "c",
                          {{"kernel", "(3, 3)"}, {"pad", "(1, 1)"}, {"stride", qv_test::Tuple({c.stride, c.stride})},
                           {"num_filter", std::to_string(c.filters)}, {"num_group", std::to_string(c.groups)},
                           {"no_bias", "True"}},
                          {data, g.Variable("c_weight")});
    const int bn = g.Op("BatchNorm", "bn", {{"fix_gamma", "False"}, {"eps", "1e-05"}},
                        {conv, g.Variable("bn_gamma"), g.Variable("bn_beta"), g.Variable("bn_moving_mean"),
                         g.Variable("bn_moving_var")});
    g.Output(g.Op("clip", "relu6", {{"a_min", "0"}, {"a_max", "6"}}, {bn}));
    const Tensor x = qv_test::Random(c.x, &rng, -2.f, 2.f);

    qv_ref::ConvParams p;
    p.kernel_h = p.kernel_w = 3;
    p.pad_h = p.pad_w = 1;
    p.stride_h = p.stride_w = c.stride;
    p.num_group = c.groups;
    const Tensor want = RefClip(qv_ref::BatchNorm(qv_ref::Convolution(x, params["c_weight"], nullptr, p),
                                                  params["bn_gamma"], params["bn_beta"], params["bn_moving_mean"],
                                                  params["bn_moving_var"], 1e-5f, false),
                                0.f, 6.f);
    ExpectClose(Run(g, {x}, params).at(0), want, "conv groups=" + std::to_string(c.groups) + " -> BN -> relu6");
  }
}

TEST_CASE("a relu6 whose input is also a graph output is not fused", "[ops][clip][fusion]") {
  std::mt19937 rng(7);
  std::map<std::string, Tensor> params = {{"c_weight", qv_test::Random({8, 1, 3, 3}, &rng, -3.f, 3.f)}};
  GraphBuilder g;
  const int data = g.Variable("data");
  const int conv = g.Op("Convolution", "c",
                        {{"kernel", "(3, 3)"}, {"num_filter", "8"}, {"num_group", "8"}, {"no_bias", "True"}},
                        {data, g.Variable("c_weight")});
  g.Output(g.Op("clip", "relu6", {{"a_min", "0"}, {"a_max", "6"}}, {conv}));
  g.Output(conv);
  const Tensor x = qv_test::Random({1, 8, 6, 6}, &rng, -3.f, 3.f);
  qv_ref::ConvParams p;
  p.kernel_h = p.kernel_w = 3;
  p.num_group = 8;
  const Tensor raw = qv_ref::Convolution(x, params["c_weight"], nullptr, p);
  const auto out = Run(g, {x}, params);
  ExpectClose(out.at(0), RefClip(raw, 0.f, 6.f), "relu6 output");
  ExpectClose(out.at(1), raw, "convolution output");
}
