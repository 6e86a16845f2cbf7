// softmax over an axis (with temperature) and SoftmaxOutput against support/reference_ops.h, and
// SoftmaxActivation (MXNet's older softmax layer) in both modes against a reference that normalises each
// group of positions index by index.
#include <cmath>

#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

// Softmax over the positions that share key(i).
template <typename Key>
Tensor RefSoftmax(const Tensor& x, Key key) {
  std::map<int64_t, double> max, sum;
  for (int64_t i = 0; i < x.size(); ++i) {
    auto it = max.find(key(i));
    if (it == max.end() || x.data[i] > it->second) max[key(i)] = x.data[i];
  }
  for (int64_t i = 0; i < x.size(); ++i) sum[key(i)] += std::exp(double(x.data[i]) - max[key(i)]);
  Tensor y(x.shape);
  for (int64_t i = 0; i < x.size(); ++i)
    y.data[i] = static_cast<float>(std::exp(double(x.data[i]) - max[key(i)]) / sum[key(i)]);
  return y;
}

}  // namespace

TEST_CASE("SoftmaxActivation: instance and channel modes", "[ops][softmax]") {
  const Tensor x = RandomTensor({2, 5, 3, 4}, 900);
  const int64_t c = 5, hw = 12;
  ExpectClose(RunUnary("SoftmaxActivation", {}, x), RefSoftmax(x, [&](int64_t i) { return i / (c * hw); }),
              "instance (default)");
  ExpectClose(RunUnary("SoftmaxActivation", {{"mode", "instance"}}, RandomTensor({3, 7}, 901)),
              RefSoftmax(RandomTensor({3, 7}, 901), [](int64_t i) { return i / 7; }), "instance, 2-D");
  ExpectClose(RunUnary("SoftmaxActivation", {{"mode", "channel"}}, x),
              RefSoftmax(x, [&](int64_t i) { return (i / (c * hw)) * hw + i % hw; }), "channel");
  ExpectMessage(FailureOf([&] { RunUnary("SoftmaxActivation", {{"mode", "pixel"}}, x); }), "op0", {"pixel"});
  ExpectMessage(FailureOf([&] { RunUnary("SoftmaxActivation", {{"mode", "channel"}}, RandomTensor({4, 6}, 902)); }),
                "op0", {"3 dimensions"});
}

TEST_CASE("softmax over an axis with temperature matches the reference", "[ops][softmax]") {
  struct Case {
    Shape x;
    AttrMap attrs;
    int64_t axis;
    float temperature;
  };
  const std::vector<Case> cases = {
      {{3, 10}, {}, -1, 1.0f},
      {{3, 10}, {{"axis", "1"}}, 1, 1.0f},
      {{2, 5, 3}, {{"axis", "1"}, {"temperature", "2.0"}}, 1, 2.0f},
      {{3, 4, 5}, {{"axis", "0"}, {"temperature", "0.5"}}, 0, 0.5f},
      {{1, 3, 7, 9}, {{"axis", "1"}}, 1, 1.0f},
      {{1, 3, 7, 9}, {{"axis", "-2"}}, -2, 1.0f},
      {{13}, {}, -1, 1.0f},
      // Last-axis lanes of whole vectors and a remainder, and wider than the inputs' spread.
      {{3, 37}, {}, -1, 1.0f},
      {{2, 100}, {{"temperature", "0.5"}}, -1, 0.5f},
  };
  unsigned seed = 800;
  for (const Case& c : cases) {
    std::string what = "softmax x=" + ShapeStr(c.x);
    for (const auto& kv : c.attrs) what += " " + kv.first + "=" + kv.second;
    RunCase(what, [&] {
      Net net(seed++);
      const int data = net.g.Variable("data");
      net.g.Output(net.g.Op("softmax", "softmax0", c.attrs, {data}));
      const Tensor x = qv_test::Random(c.x, &net.rng, -4.0f, 4.0f);
      const std::vector<Tensor> out = RunSingleInput(net, x);
      REQUIRE(out.size() == 1);
      ExpectClose(out[0], qv_ref::Softmax(x, c.axis, c.temperature), what);
    });
  }
}

TEST_CASE("SoftmaxOutput ignores its label and normalises like MXNet", "[ops][softmax]") {
  struct Case {
    Shape x;
    bool multi_output, preserve_shape;
  };
  const std::vector<Case> cases = {
      {{3, 10}, false, false},        {{2, 3, 4}, false, false},     {{1, 13}, false, false},
      {{2, 5, 3, 4}, true, false},    {{3, 13, 7}, true, false},     {{2, 3, 7}, false, true},
      {{3, 4, 5, 2}, false, true},
  };
  unsigned seed = 900;
  for (const Case& c : cases) {
    const std::string what = "SoftmaxOutput x=" + ShapeStr(c.x) + (c.multi_output ? " multi_output" : "") +
                             (c.preserve_shape ? " preserve_shape" : "");
    RunCase(what, [&] {
      Net net(seed++);
      const int data = net.g.Variable("data");
      const int label = net.g.Variable("softmax_label");
      AttrMap attrs;
      if (c.multi_output) attrs["multi_output"] = "True";
      if (c.preserve_shape) attrs["preserve_shape"] = "True";
      if (seed % 2) attrs["normalization"] = "null";
      net.g.Output(net.g.Op("SoftmaxOutput", "softmax", attrs, {data, label}));
      CompiledGraph op(net.g.ToJson(), net.params);
      CHECK(op.InputNames() == std::vector<std::string>{"data"});  // the label is not a data input
      CHECK(op.OutputNames() == std::vector<std::string>{"softmax_output"});
      const Tensor x = qv_test::Random(c.x, &net.rng, -4.0f, 4.0f);
      const std::vector<Tensor> out = op.Run({x});
      REQUIRE(out.size() == 1);
      ExpectClose(out[0], qv_ref::SoftmaxOutput(x, c.multi_output, c.preserve_shape), what);
    });
  }
}
