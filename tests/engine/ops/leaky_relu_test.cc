// LeakyReLU's act_types against MXNet's definitions, written out here.
#include <cmath>

#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

Tensor Map(const Tensor& x, float (*f)(float, float), float slope) {
  Tensor y = x;
  for (float& v : y.data) v = f(v, slope);
  return y;
}

float Leaky(float v, float slope) { return v > 0 ? v : slope * v; }
float Elu(float v, float slope) { return v > 0 ? v : slope * (std::exp(v) - 1.f); }
float Selu(float v, float) {
  const double alpha = 1.6732632423543772848170429916717, lambda = 1.0507009873554804934193349852946;
  return static_cast<float>(lambda * (v > 0 ? v : alpha * (std::exp(static_cast<double>(v)) - 1.0)));
}
float Gelu(float v, float) { return static_cast<float>(0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)))); }

// gamma per channel (axis 1), or one value for all.
Tensor PRelu(const Tensor& x, const Tensor& gamma) {
  Tensor y = x;
  const int64_t inner = qv_ref::ElementCount(Shape(x.shape.begin() + 2, x.shape.end()));
  for (int64_t i = 0; i < x.size(); ++i) {
    const int64_t c = (i / inner) % x.shape[1];
    const float g = gamma.size() == 1 ? gamma.data[0] : gamma.data[c];
    y.data[i] = x.data[i] > 0 ? x.data[i] : g * x.data[i];
  }
  return y;
}

}  // namespace

TEST_CASE("LeakyReLU leaky, rrelu, elu, selu and gelu match MXNet's formulas", "[ops][leaky_relu]") {
  struct Case {
    AttrMap attrs;
    float (*f)(float, float);
    float slope;
  };
  const std::vector<Case> cases = {
      {{}, Leaky, 0.25f},  // act_type defaults to leaky, slope to 0.25
      {{{"act_type", "leaky"}, {"slope", "0.1"}}, Leaky, 0.1f},
      {{{"act_type", "rrelu"}}, Leaky, (0.125f + 0.334f) / 2},  // inference: the mean of the bounds
      {{{"act_type", "rrelu"}, {"lower_bound", "0.2"}, {"upper_bound", "0.4"}}, Leaky, 0.3f},
      {{{"act_type", "elu"}}, Elu, 0.25f},
      {{{"act_type", "elu"}, {"slope", "1.0"}}, Elu, 1.f},
      {{{"act_type", "selu"}}, Selu, 0.f},
      {{{"act_type", "gelu"}}, Gelu, 0.f},
  };
  unsigned seed = 60;
  for (const Case& c : cases) {
    for (const Shape& shape : {Shape{2, 13, 5, 7}, Shape{3, 11}}) {
      const Tensor x = RandomTensor(shape, seed++, -4.f, 4.f);
      std::string what = "LeakyReLU";
      for (const auto& kv : c.attrs) what += " " + kv.first + "=" + kv.second;
      ExpectClose(RunUnary("LeakyReLU", c.attrs, x), Map(x, c.f, c.slope), what + " x=" + qv_ref::ShapeToString(shape));
    }
  }
}

TEST_CASE("LeakyReLU prelu: gamma per channel or shared", "[ops][leaky_relu]") {
  for (const Shape& shape : {Shape{2, 5, 4, 3}, Shape{3, 17}, Shape{1, 16, 3, 3}}) {
    for (bool shared : {false, true}) {
      const Tensor x = RandomTensor(shape, 70);
      const Tensor gamma = RandomTensor({shared ? 1 : shape[1]}, 71, 0.f, 1.f);
      GraphBuilder g;
      const int data = g.Variable("data");
      g.Output(g.Op("LeakyReLU", "p", {{"act_type", "prelu"}}, {data, g.Variable("p_gamma")}));
      ExpectClose(Run(g, {x}, {{"p_gamma", gamma}}).at(0), PRelu(x, gamma),
                  std::string("prelu ") + (shared ? "shared" : "per channel") + " x=" + qv_ref::ShapeToString(shape));
    }
  }
}

TEST_CASE("LeakyReLU leaky after a convolution is fused and still right", "[ops][leaky_relu][fusion]") {
  std::mt19937 rng(80);
  std::map<std::string, Tensor> params = {{"c_weight", qv_test::Random({13, 5, 3, 3}, &rng)},
                                          {"c_bias", qv_test::Random({13}, &rng)}};
  GraphBuilder g;
  const int data = g.Variable("data");
  const int conv = g.Op("Convolution", "c", {{"kernel", "(3, 3)"}, {"pad", "(1, 1)"}, {"num_filter", "13"}},
                        {data, g.Variable("c_weight"), g.Variable("c_bias")});
  g.Output(g.Op("LeakyReLU", "act", {{"act_type", "leaky"}, {"slope", "0.1"}}, {conv}));
  const Tensor x = qv_test::Random({2, 5, 6, 7}, &rng);
  qv_ref::ConvParams p;
  p.kernel_h = p.kernel_w = 3;
  p.pad_h = p.pad_w = 1;
  const Tensor want = Map(qv_ref::Convolution(x, params["c_weight"], &params["c_bias"], p), Leaky, 0.1f);
  ExpectClose(Run(g, {x}, params).at(0), want, "conv -> leaky 0.1");
}

TEST_CASE("LeakyReLU errors name the node", "[ops][leaky_relu]") {
  const Tensor x = RandomTensor({2, 4, 3, 3}, 90);
  ExpectMessage(FailureOf([&] { RunUnary("LeakyReLU", {{"act_type", "swish"}}, x); }), "op0", {"swish"});
  ExpectMessage(FailureOf([&] {
                  RunUnary("LeakyReLU", {{"act_type", "rrelu"}, {"lower_bound", "0.5"}, {"upper_bound", "0.1"}}, x);
                }),
                "op0", {"lower_bound"});
  const std::string wrong_gamma = FailureOf([&] {
    GraphBuilder g;
    const int data = g.Variable("data");
    g.Output(g.Op("LeakyReLU", "prelu_bad", {{"act_type", "prelu"}}, {data, g.Variable("prelu_bad_gamma")}));
    Run(g, {x}, {{"prelu_bad_gamma", RandomTensor({3}, 91)}});
  });
  ExpectMessage(wrong_gamma, "prelu_bad", {"gamma", "(3,)", "(4,)"});
}
