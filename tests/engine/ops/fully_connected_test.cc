// FullyConnected (flatten true and false, bias or not) against the reference, alone and with the
// activations the CPU fuses into it.
#include <cmath>

#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

TEST_CASE("FullyConnected matches the reference (flatten true and false, bias or not)", "[ops][fully_connected]") {
  struct Case {
    Shape x;
    int64_t hidden;
    bool flatten;
    bool bias;
  };
  const std::vector<Case> cases = {
      {{3, 5, 4, 4}, 10, true, true},  {{1, 13}, 7, true, true},      {{3, 13}, 16, true, false},
      {{3, 3, 7, 9}, 5, true, false},  {{3, 4, 13}, 6, false, true},  {{2, 3, 4, 5}, 8, false, false},
      {{1, 7}, 1, false, true},        {{3, 1, 1, 1}, 13, true, true},
  };
  unsigned seed = 500;
  for (const Case& c : cases) {
    const std::string what = "FullyConnected x=" + ShapeStr(c.x) + " num_hidden=" + std::to_string(c.hidden) +
                             (c.flatten ? " flatten" : " no-flatten") + (c.bias ? " bias" : " no_bias");
    RunCase(what, [&] {
      Net net(seed++);
      const int64_t k = c.flatten ? qv_ref::ElementCount(c.x) / c.x[0] : c.x.back();
      const float scale = 1.0f / std::sqrt(static_cast<float>(k));
      net.Param("fc0_weight", {c.hidden, k}, -scale, scale);
      const int data = net.g.Variable("data");
      std::vector<qv_test::Entry> inputs = {data, net.g.Variable("fc0_weight")};
      if (c.bias) {
        net.Param("fc0_bias", {c.hidden});
        inputs.push_back(net.g.Variable("fc0_bias"));
      }
      AttrMap attrs = {{"num_hidden", std::to_string(c.hidden)}, {"no_bias", c.bias ? "False" : "True"}};
      if (!c.flatten || (seed % 2)) attrs["flatten"] = c.flatten ? "True" : "False";
      net.g.Output(net.g.Op("FullyConnected", "fc0", attrs, inputs));
      const Tensor x = qv_test::Random(c.x, &net.rng);
      const std::vector<Tensor> out = RunSingleInput(net, x);
      REQUIRE(out.size() == 1);
      ExpectClose(out[0], qv_ref::FullyConnected(x, net.params.at("fc0_weight"),
                                                 c.bias ? &net.params.at("fc0_bias") : nullptr, c.flatten),
                  what);
    });
  }
}

TEST_CASE("FullyConnected followed by GELU, ReLU or leaky ReLU matches the reference, fused", "[ops][fully_connected]") {
  struct Case {
    std::string op;
    AttrMap attrs;
    float (*f)(float);
  };
  const std::vector<Case> cases = {
      {"LeakyReLU", {{"act_type", "gelu"}},
       [](float v) { return static_cast<float>(0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)))); }},
      {"Activation", {{"act_type", "relu"}}, [](float v) { return std::max(v, 0.f); }},
      {"LeakyReLU", {{"act_type", "leaky"}, {"slope", "0.25"}}, [](float v) { return v < 0 ? 0.25f * v : v; }},
  };
  unsigned seed = 560;
  for (const Case& c : cases) {
    const std::string what = "FullyConnected -> " + c.op + " " + c.attrs.begin()->second;
    RunCase(what, [&] {
      Net net(seed++);
      net.Param("fc0_weight", {24, 40}, -0.4f, 0.4f);
      net.Param("fc0_bias", {24});
      const int fc = net.g.Op("FullyConnected", "fc0", {{"num_hidden", "24"}, {"flatten", "False"}},
                              {net.g.Variable("data"), net.g.Variable("fc0_weight"), net.g.Variable("fc0_bias")});
      net.g.Output(net.g.Op(c.op, "act0", c.attrs, {fc}));
      const Tensor x = qv_test::Random({2, 3, 40}, &net.rng, -3.f, 3.f);
      Tensor want = qv_ref::FullyConnected(x, net.params.at("fc0_weight"), &net.params.at("fc0_bias"), false);
      for (float& v : want.data) v = c.f(v);
      ExpectClose(RunSingleInput(net, x).at(0), want, what);
    });
  }
}

TEST_CASE("FullyConnected -> elemwise_add (a residual) matches the reference, fused as a sum", "[ops][fully_connected]") {
  // BERT's shape: out = [gelu](x W' + b) + residual [-> relu]. The residual is the data itself (copied
  // into the output before the run), or an intermediate whose last reader is the add (the output then
  // takes over its buffer).
  auto gelu = [](float v) { return static_cast<float>(0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)))); };
  unsigned seed = 600;
  for (int residual_is_data = 0; residual_is_data < 2; ++residual_is_data) {
    for (int fc_first = 0; fc_first < 2; ++fc_first) {
      for (int with_gelu = 0; with_gelu < 2; ++with_gelu) {
        for (int bias = 0; bias < 2; ++bias) {
          const std::string what = std::string("residual ") + (residual_is_data ? "data" : "relu(data)") +
                                   (fc_first ? ", fc + residual" : ", residual + fc") + (with_gelu ? ", gelu" : "") +
                                   (bias ? ", bias" : ", no_bias") + (with_gelu ? "" : " -> relu");
          RunCase(what, [&] {
            Net net(seed++);
            net.Param("fc0_weight", {24, 24}, -0.3f, 0.3f);
            const int data = net.g.Variable("data");
            const int residual = residual_is_data ? data : net.g.Op("Activation", "pre", {{"act_type", "relu"}}, {data});
            std::vector<qv_test::Entry> inputs = {residual, net.g.Variable("fc0_weight")};
            if (bias) {
              net.Param("fc0_bias", {24});
              inputs.push_back(net.g.Variable("fc0_bias"));
            }
            int branch = net.g.Op("FullyConnected", "fc0",
                                  {{"num_hidden", "24"}, {"flatten", "False"}, {"no_bias", bias ? "False" : "True"}},
                                  inputs);
            if (with_gelu) branch = net.g.Op("LeakyReLU", "gelu0", {{"act_type", "gelu"}}, {branch});
            int head = fc_first ? net.g.Op("elemwise_add", "add0", {}, {branch, residual})
                                : net.g.Op("elemwise_add", "add0", {}, {residual, branch});
            if (!with_gelu) head = net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {head});
            net.g.Output(head);

            const Tensor x = qv_test::Random({2, 5, 24}, &net.rng, -2.f, 2.f);
            const Tensor r = residual_is_data ? x : qv_ref::Activation(x, "relu");
            Tensor want = qv_ref::FullyConnected(r, net.params.at("fc0_weight"),
                                                 bias ? &net.params.at("fc0_bias") : nullptr, false);
            for (size_t i = 0; i < want.data.size(); ++i) {
              const float v = (with_gelu ? gelu(want.data[i]) : want.data[i]) + r.data[i];
              want.data[i] = with_gelu ? v : std::max(v, 0.f);
            }
            ExpectClose(RunSingleInput(net, x).at(0), want, what);
          });
        }
      }
    }
  }
}
