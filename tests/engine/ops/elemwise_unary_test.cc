// The element-wise math functions against double-precision references (within float rounding), the
// rounding functions against MXNet's documented examples exactly, and exp bit for bit against expf
// (what MXNet's CPU kernel calls), on data from the plan's input and from a convolution (whose output
// the CPU may keep in a blocked layout).
#include <cmath>
#include <functional>

#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

Tensor Map(Tensor x, const std::function<double(double)>& f) {
  for (float& v : x.data) v = static_cast<float>(f(v));
  return x;
}

}  // namespace

TEST_CASE("Math functions match double-precision references within float rounding", "[ops][math]") {
  struct Case {
    const char* op;
    std::function<double(double)> f;
    float lo, hi;  // the domain sampled
  };
  const std::vector<Case> cases = {
      {"expm1", [](double x) { return std::expm1(x); }, -5.f, 5.f},
      {"log", [](double x) { return std::log(x); }, 0.01f, 100.f},
      {"log2", [](double x) { return std::log2(x); }, 0.01f, 100.f},
      {"log10", [](double x) { return std::log10(x); }, 0.01f, 100.f},
      {"log1p", [](double x) { return std::log1p(x); }, -0.9f, 10.f},
      {"sqrt", [](double x) { return std::sqrt(x); }, 0.f, 100.f},
      {"rsqrt", [](double x) { return 1 / std::sqrt(x); }, 0.01f, 100.f},
      {"cbrt", [](double x) { return std::cbrt(x); }, -100.f, 100.f},
      {"square", [](double x) { return x * x; }, -10.f, 10.f},
      {"reciprocal", [](double x) { return 1 / x; }, 0.1f, 10.f},
      {"abs", [](double x) { return std::fabs(x); }, -10.f, 10.f},
      {"negative", [](double x) { return -x; }, -10.f, 10.f},
      {"sin", [](double x) { return std::sin(x); }, -6.f, 6.f},
      {"cos", [](double x) { return std::cos(x); }, -6.f, 6.f},
      {"tan", [](double x) { return std::tan(x); }, -1.5f, 1.5f},
      {"tanh", [](double x) { return std::tanh(x); }, -5.f, 5.f},
      {"erf", [](double x) { return std::erf(x); }, -4.f, 4.f},
      {"floor", [](double x) { return std::floor(x); }, -10.f, 10.f},
      {"ceil", [](double x) { return std::ceil(x); }, -10.f, 10.f},
      {"trunc", [](double x) { return std::trunc(x); }, -10.f, 10.f},
  };
  unsigned seed = 1000;
  for (const Case& c : cases) {
    const Tensor x = RandomTensor({3, 4, 25}, seed++, c.lo, c.hi);
    ExpectClose(RunUnary(c.op, {}, x), Map(x, c.f), c.op, 2e-6);
  }
}

TEST_CASE("Rounding functions follow MXNet's definitions exactly", "[ops][math]") {
  const Tensor x({8}, {-2.5f, -2.1f, -1.9f, -1.5f, 1.5f, 1.9f, 2.1f, 2.5f});
  // round: halves away from zero.
  ExpectClose(RunUnary("round", {}, x), Tensor({8}, {-3, -2, -2, -2, 2, 2, 2, 3}), "round", 0.0);
  // rint: the nearer of floor and ceil, halves down (rint(1.5) = 1, rint(-2.5) = -3).
  ExpectClose(RunUnary("rint", {}, x), Tensor({8}, {-3, -2, -2, -2, 1, 2, 2, 2}), "rint", 0.0);
  // fix: towards zero.
  ExpectClose(RunUnary("fix", {}, x), Tensor({8}, {-2, -2, -1, -1, 1, 1, 2, 2}), "fix", 0.0);
  const Tensor s({5}, {-3.f, -0.f, 0.f, 0.5f, 7.f});
  ExpectClose(RunUnary("sign", {}, s), Tensor({5}, {-1, 0, 0, 1, 1}), "sign", 0.0);
}

TEST_CASE("exp is std::exp element by element, as MXNet's expf", "[ops][exp]") {
  for (const Shape& shape : std::vector<Shape>{{1000}, {2, 3, 5, 7}}) {
    const Tensor x = RandomTensor(shape, 740, -20.f, 20.f);
    Tensor want = x;
    for (float& v : want.data) v = std::exp(v);
    ExpectClose(RunUnary("exp", {}, x), want, "exp " + ShapeStr(shape), 0.0);
  }
}

TEST_CASE("Math functions of a convolution's output match the reference", "[ops][math]") {
  for (const char* op : {"exp", "abs", "cos"}) {  // f(0) != 0 (exp, cos) reads row-major data; abs keeps zero
    Net net(741);
    const int data = net.g.Variable("data");
    const ConvParams p = MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1);
    const int conv = net.Conv("conv0", data, 8, 16, p, true);
    net.g.Output(net.g.Op(op, "f0", {}, {conv}));
    const Tensor x = qv_test::Random({2, 8, 9, 9}, &net.rng, -1.f, 1.f);
    const Tensor y = net.RefConv("conv0", x, p, true);
    const std::string name = op;
    const Tensor want = Map(y, [&](double v) { return name == "exp" ? std::exp(v) : name == "abs" ? std::fabs(v) : std::cos(v); });
    ExpectClose(RunSingleInput(net, x).at(0), want, std::string(op) + "(conv)", 1e-5);
  }
}
