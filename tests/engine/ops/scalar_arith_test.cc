// The _*_scalar family (and the _PlusScalar-style aliases) against plain arithmetic.
#include <functional>

#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

Tensor RefScalar(const std::string& kind, const Tensor& x, float s) {
  Tensor y = x;
  for (float& v : y.data) {
    if (kind == "plus") v = v + s;
    else if (kind == "minus") v = v - s;
    else if (kind == "rminus") v = s - v;
    else if (kind == "mul") v = v * s;
    else if (kind == "div") v = v / s;
    else v = s / v;
  }
  return y;
}

}  // namespace

TEST_CASE("scalar arithmetic matches the reference, in plain and blocked layouts", "[ops][scalar]") {
  const std::vector<std::pair<std::string, std::string>> ops = {
      {"_plus_scalar", "plus"},   {"_PlusScalar", "plus"},     {"_minus_scalar", "minus"}, {"_MinusScalar", "minus"},
      {"_rminus_scalar", "rminus"}, {"_RMinusScalar", "rminus"}, {"_mul_scalar", "mul"},     {"_MulScalar", "mul"},
      {"_div_scalar", "div"},     {"_DivScalar", "div"},       {"_rdiv_scalar", "rdiv"},   {"_RDivScalar", "rdiv"},
  };
  unsigned seed = 400;
  for (const auto& [name, kind] : ops) {
    for (const char* scalar : {"2.5", "-0.125"}) {
      const float s = std::stof(scalar);
      const Tensor x = RandomTensor({2, 3, 4, 5}, seed++, 0.5f, 3.f);
      ExpectClose(RunUnary(name, {{"scalar", scalar}, {"is_int", "False"}}, x), RefScalar(kind, x, s),
                  name + " scalar=" + scalar);

      // After a 13-filter convolution the data arrives blocked, with padded channels.
      std::mt19937 rng(seed++);
      const std::map<std::string, Tensor> params = {{"c_weight", qv_test::Random({13, 3, 1, 1}, &rng, 0.1f, 1.f)}};
      GraphBuilder g;
      const int data = g.Variable("data");
      const int conv = g.Op("Convolution", "c", {{"kernel", "(1, 1)"}, {"num_filter", "13"}, {"no_bias", "True"}},
                            {data, g.Variable("c_weight")});
      g.Output(g.Op(name, "op0", {{"scalar", scalar}}, {conv}));
      qv_ref::ConvParams p;
      const Tensor want = RefScalar(kind, qv_ref::Convolution(x, params.at("c_weight"), nullptr, p), s);
      ExpectClose(Run(g, {x}, params).at(0), want, "conv -> " + name + " scalar=" + scalar);
    }
  }
}

TEST_CASE("scalar arithmetic needs its scalar, naming the node", "[ops][scalar]") {
  const Tensor x = RandomTensor({2, 3}, 1);
  ExpectMessage(FailureOf([&] { RunUnary("_mul_scalar", {}, x); }), "op0", {"scalar", "missing"});
  ExpectMessage(FailureOf([&] { RunUnary("_plus_scalar", {{"scalar", "two"}}, x); }), "op0", {"scalar", "two"});
}

TEST_CASE("scalar comparisons give 1 or 0, also after a blocked convolution", "[ops][scalar]") {
  const std::vector<std::pair<std::string, std::function<bool(float, float)>>> ops = {
      {"_greater_scalar", [](float x, float s) { return x > s; }},
      {"_greater_equal_scalar", [](float x, float s) { return x >= s; }},
      {"_lesser_scalar", [](float x, float s) { return x < s; }},
      {"_lesser_equal_scalar", [](float x, float s) { return x <= s; }},
      {"_equal_scalar", [](float x, float s) { return x == s; }},
      {"_not_equal_scalar", [](float x, float s) { return x != s; }},
  };
  Tensor x = RandomTensor({2, 3, 4, 5}, 450);
  for (size_t i = 0; i < x.data.size(); i += 7) x.data[i] = 0.5f;  // ties with the scalar
  for (const auto& [name, holds] : ops) {
    Tensor want = x;
    for (float& v : want.data) v = holds(v, 0.5f) ? 1.f : 0.f;
    ExpectClose(RunUnary(name, {{"scalar", "0.5"}}, x), want, name);
  }
}

TEST_CASE("scalar maximum, minimum, power and mod, either order, with their legacy names", "[ops][scalar]") {
  const Tensor x({6}, {-7.f, -2.5f, 0.f, 1.5f, 4.f, 7.f});
  auto run = [&](const std::string& op, const char* scalar) { return RunUnary(op, {{"scalar", scalar}}, x); };
  ExpectClose(run("_maximum_scalar", "1"), Tensor({6}, {1, 1, 1, 1.5f, 4, 7}), "_maximum_scalar", 0.0);
  ExpectClose(run("_MinimumScalar", "1"), Tensor({6}, {-7, -2.5f, 0, 1, 1, 1}), "_MinimumScalar", 0.0);
  ExpectClose(run("_power_scalar", "2"), Tensor({6}, {49, 6.25f, 0, 2.25f, 16, 49}), "_power_scalar", 0.0);
  ExpectClose(run("_rpower_scalar", "2"), Tensor({6}, {1.f / 128, std::pow(2.f, -2.5f), 1, std::pow(2.f, 1.5f), 16, 128}),
              "_rpower_scalar", 1e-6);
  // MXNet's mod takes the divisor's sign: -7 mod 3 = 2, 7 mod -3 = -2; and x mod 0 = 0.
  ExpectClose(run("_mod_scalar", "3"), Tensor({6}, {2, 0.5f, 0, 1.5f, 1, 1}), "_mod_scalar 3", 0.0);
  ExpectClose(run("_ModScalar", "-3"), Tensor({6}, {-1, -2.5f, 0, -1.5f, -2, -2}), "_ModScalar -3", 0.0);
  ExpectClose(run("_rmod_scalar", "10"), Tensor({6}, {-4, -0, 0, 1, 2, 3}), "_rmod_scalar 10", 0.0);
}
