// elemwise_* and broadcast_* add/sub/mul/div (with MXNet's aliases), and maximum, minimum, power, mod
// and the comparisons, against a broadcasting reference (MXNet's mod rules checked on worked
// examples); elemwise_add, _Plus and broadcast_add (named data inputs, more broadcast shapes) against
// support/reference_ops.h.
#include <cmath>
#include <functional>

#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

float Apply(char op, float a, float b) {
  switch (op) {
    case '+': return a + b;
    case '-': return a - b;
    case '*': return a * b;
    default: return a / b;
  }
}

// numpy broadcasting, written with explicit multi-indices.
Tensor RefBinary(const std::function<float(float, float)>& f, const Tensor& a, const Tensor& b) {
  const size_t n = std::max(a.shape.size(), b.shape.size());
  Shape pa(n - a.shape.size(), 1), pb(n - b.shape.size(), 1), out(n);
  pa.insert(pa.end(), a.shape.begin(), a.shape.end());
  pb.insert(pb.end(), b.shape.begin(), b.shape.end());
  for (size_t d = 0; d < n; ++d) out[d] = std::max(pa[d], pb[d]);
  Tensor y(out);
  const auto sa = Strides(pa), sb = Strides(pb);
  for (int64_t i = 0; i < y.size(); ++i) {
    const auto idx = Unravel(i, out);
    int64_t ia = 0, ib = 0;
    for (size_t d = 0; d < n; ++d) {
      ia += (pa[d] == 1 ? 0 : idx[d]) * sa[d];
      ib += (pb[d] == 1 ? 0 : idx[d]) * sb[d];
    }
    y.data[i] = f(a.data[ia], b.data[ib]);
  }
  return y;
}

Tensor RefBinary(char op, const Tensor& a, const Tensor& b) {
  return RefBinary([op](float x, float y) { return Apply(op, x, y); }, a, b);
}

// Python's %: the remainder has the divisor's sign; MXNet gives 0 for a zero divisor.
float PythonMod(float a, float b) {
  if (b == 0.f) return 0.f;
  const double r = std::fmod(static_cast<double>(a), static_cast<double>(b));
  return static_cast<float>(r != 0 && ((r < 0) != (b < 0)) ? r + b : r);
}

const std::vector<std::pair<const char*, std::function<float(float, float)>>>& MoreFunctions() {
  static const std::vector<std::pair<const char*, std::function<float(float, float)>>> functions = {
      {"maximum", [](float a, float b) { return a > b ? a : b; }},
      {"minimum", [](float a, float b) { return a < b ? a : b; }},
      {"power", [](float a, float b) { return static_cast<float>(std::pow(static_cast<double>(a), b)); }},
      {"mod", PythonMod},
      {"equal", [](float a, float b) { return a == b ? 1.f : 0.f; }},
      {"not_equal", [](float a, float b) { return a != b ? 1.f : 0.f; }},
      {"greater", [](float a, float b) { return a > b ? 1.f : 0.f; }},
      {"greater_equal", [](float a, float b) { return a >= b ? 1.f : 0.f; }},
      {"lesser", [](float a, float b) { return a < b ? 1.f : 0.f; }},
      {"lesser_equal", [](float a, float b) { return a <= b ? 1.f : 0.f; }},
  };
  return functions;
}

// Values on a coarse grid, so that the comparisons meet equal pairs too.
Tensor GridTensor(const Shape& shape, unsigned seed, float lo, float hi) {
  Tensor t = RandomTensor(shape, seed, lo, hi);
  for (float& v : t.data) v = std::round(v * 2.f) / 2.f;
  return t;
}

Tensor RunBinary(const std::string& op, const Tensor& a, const Tensor& b) {
  GraphBuilder g;
  const int lhs = g.Variable("lhs"), rhs = g.Variable("rhs");
  g.Output(g.Op(op, "op0", {}, {lhs, rhs}));
  return Run(g, {a, b}).at(0);
}

}  // namespace

TEST_CASE("elemwise add/sub/mul/div and their aliases match the reference", "[ops][binary]") {
  const std::vector<std::pair<std::string, char>> ops = {
      {"elemwise_add", '+'}, {"_plus", '+'}, {"elemwise_sub", '-'}, {"_minus", '-'}, {"_Minus", '-'}, {"_sub", '-'},
      {"elemwise_mul", '*'}, {"_mul", '*'},  {"_Mul", '*'},         {"elemwise_div", '/'}, {"_div", '/'}, {"_Div", '/'},
  };
  unsigned seed = 100;
  for (const auto& [name, op] : ops) {
    for (const Shape& shape : {Shape{2, 13, 5, 7}, Shape{7}, Shape{3, 4}}) {
      const Tensor a = RandomTensor(shape, seed++), b = RandomTensor(shape, seed++, 0.5f, 2.f);
      ExpectClose(RunBinary(name, a, b), RefBinary(op, a, b), name + " x=" + qv_ref::ShapeToString(shape));
    }
  }
}

TEST_CASE("broadcast add/sub/mul/div match numpy broadcasting, either side stretching", "[ops][binary]") {
  const std::vector<std::pair<std::string, char>> ops = {{"broadcast_add", '+'}, {"broadcast_plus", '+'},
                                                         {"broadcast_sub", '-'}, {"broadcast_minus", '-'},
                                                         {"broadcast_mul", '*'}, {"broadcast_div", '/'}};
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{2, 5, 3, 4}, {1, 5, 1, 1}},  // per-channel scale (squeeze-and-excitation style)
      {{1, 5, 1, 1}, {2, 5, 3, 4}},  // the left side stretches
      {{2, 3, 4}, {4}},              // fewer dimensions on the right
      {{3, 1}, {1, 4}},              // both stretch
      {{2, 3}, {2, 3}},              // equal shapes
  };
  unsigned seed = 200;
  for (const auto& [name, op] : ops) {
    for (const auto& [sa, sb] : shapes) {
      const Tensor a = RandomTensor(sa, seed++), b = RandomTensor(sb, seed++, 0.5f, 2.f);
      ExpectClose(RunBinary(name, a, b), RefBinary(op, a, b),
                  name + " " + qv_ref::ShapeToString(sa) + " with " + qv_ref::ShapeToString(sb));
    }
  }
}

TEST_CASE("maximum, minimum, power, mod and the comparisons, element-wise and broadcast", "[ops][binary]") {
  unsigned seed = 150;
  for (const auto& [name, f] : MoreFunctions()) {
    const std::string fn = name;
    // power over positive bases (a negative base with a fractional exponent is NaN in both).
    const float lo = fn == "power" ? 0.5f : -4.f;
    const Tensor a = GridTensor({3, 4, 5}, seed++, lo, 4.f), b = GridTensor({3, 4, 5}, seed++, -3.f, 3.f);
    ExpectClose(RunBinary("_" + fn, a, b), RefBinary(f, a, b), "_" + fn, 2e-6);
    const Tensor row = GridTensor({1, 4, 1}, seed++, -3.f, 3.f);
    ExpectClose(RunBinary("broadcast_" + fn, a, row), RefBinary(f, a, row), "broadcast_" + fn, 2e-6);
  }
  // MXNet's mod, worked out by hand: the divisor's sign, and 0 for a zero divisor.
  const Tensor a({6}, {-7.f, 7.f, -7.f, 7.f, 6.f, 5.5f}), b({6}, {3.f, -3.f, -3.f, 3.f, 0.f, 2.f});
  ExpectClose(RunBinary("_mod", a, b), Tensor({6}, {2.f, -2.f, -1.f, 1.f, 0.f, 1.5f}), "_mod examples", 0.0);
  // MXNet's legacy spellings.
  ExpectClose(RunBinary("_Maximum", a, b), RefBinary(MoreFunctions()[0].second, a, b), "_Maximum", 0.0);
  ExpectClose(RunBinary("_Power", Tensor({2}, {2.f, 3.f}), Tensor({2}, {3.f, 2.f})), Tensor({2}, {8.f, 9.f}), "_Power",
              0.0);
}

TEST_CASE("binary ops on convolution outputs in blocked layouts", "[ops][binary]") {
  // 13 channels: oneDNN pads the channel block, and division must not see the padding.
  std::mt19937 rng(300);
  // c2 sees positive data and weights, so the divisor stays away from 0.
  std::map<std::string, Tensor> params = {{"c1_weight", qv_test::Random({13, 3, 3, 3}, &rng)},
                                          {"c2_weight", qv_test::Random({13, 3, 3, 3}, &rng, 0.1f, 1.f)},
                                          {"c3_weight", qv_test::Random({4, 13, 3, 3}, &rng)}};
  for (const auto& [name, op] : std::vector<std::pair<std::string, char>>{
           {"elemwise_sub", '-'}, {"elemwise_mul", '*'}, {"elemwise_div", '/'}, {"broadcast_div", '/'}}) {
    GraphBuilder g;
    const int data = g.Variable("data");
    const AttrMap conv = {{"kernel", "(3, 3)"}, {"pad", "(1, 1)"}, {"num_filter", "13"}, {"no_bias", "True"}};
    const int c1 = g.Op("Convolution", "c1", conv, {data, g.Variable("c1_weight")});
    const int c2 = g.Op("Convolution", "c2", conv, {data, g.Variable("c2_weight")});
    const int out = g.Op(name, "op0", {}, {c1, c2});
    AttrMap last = conv;
    last["num_filter"] = "4";
    g.Output(g.Op("Convolution", "c3", last, {out, g.Variable("c3_weight")}));
    const Tensor x = qv_test::Random({2, 3, 6, 5}, &rng, 0.1f, 1.f);
    qv_ref::ConvParams p;
    p.kernel_h = p.kernel_w = 3;
    p.pad_h = p.pad_w = 1;
    const Tensor y1 = qv_ref::Convolution(x, params["c1_weight"], nullptr, p);
    const Tensor y2 = qv_ref::Convolution(x, params["c2_weight"], nullptr, p);
    const Tensor want = qv_ref::Convolution(RefBinary(op, y1, y2), params["c3_weight"], nullptr, p);
    ExpectClose(Run(g, {x}, params).at(0), want, "conv, conv -> " + name + " -> conv", 1e-4);
  }
}

TEST_CASE("binary ops refuse shapes that do not fit, naming the node", "[ops][binary]") {
  const Tensor a = RandomTensor({2, 3}, 1), b = RandomTensor({3, 2}, 2);
  ExpectMessage(FailureOf([&] { RunBinary("elemwise_mul", a, b); }), "op0", {"(2, 3)", "(3, 2)"});
  ExpectMessage(FailureOf([&] { RunBinary("broadcast_sub", a, b); }), "op0", {"cannot broadcast"});
}

TEST_CASE("elemwise_add and broadcast_add match the reference", "[ops][binary]") {
  struct Case {
    std::string op;
    Shape a, b;
  };
  const std::vector<Case> cases = {
      {"elemwise_add", {1, 3, 7, 9}, {1, 3, 7, 9}},
      {"elemwise_add", {3, 13}, {3, 13}},
      {"_Plus", {3, 5, 2, 2}, {3, 5, 2, 2}},
      {"broadcast_add", {3, 5, 4, 4}, {1, 5, 1, 1}},
      {"broadcast_add", {1, 5, 1, 1}, {3, 5, 4, 4}},
      {"broadcast_add", {3, 1, 4}, {5, 1}},
      {"broadcast_add", {1, 13}, {13}},
      {"broadcast_add", {3, 13, 7, 9}, {3, 13, 7, 9}},
      {"broadcast_add", {2, 1, 3}, {1, 4, 1}},
  };
  unsigned seed = 700;
  for (const Case& c : cases) {
    const std::string what = c.op + " " + ShapeStr(c.a) + " + " + ShapeStr(c.b);
    RunCase(what, [&] {
      Net net(seed++);
      const int a = net.g.Variable("lhs_data"), b = net.g.Variable("rhs_data");
      net.g.Output(net.g.Op(c.op, "add0", {}, {a, b}));
      CompiledGraph op(net.g.ToJson(), net.params);
      REQUIRE(op.InputNames() == std::vector<std::string>{"lhs_data", "rhs_data"});
      const Tensor ta = qv_test::Random(c.a, &net.rng), tb = qv_test::Random(c.b, &net.rng);
      const std::vector<Tensor> out = op.Run({ta, tb});
      REQUIRE(out.size() == 1);
      ExpectClose(out[0], qv_ref::BroadcastAdd(ta, tb), what);
    });
  }
}

TEST_CASE("a per-channel gate broadcast into a convolution's blocked output, on either side", "[ops][binary]") {
  // 13 channels: oneDNN pads the channel block; the gate is a second input, (N, 13, 1, 1), row-major.
  std::mt19937 rng(320);
  std::map<std::string, Tensor> params = {{"c1_weight", qv_test::Random({13, 3, 3, 3}, &rng)},
                                          {"c3_weight", qv_test::Random({4, 13, 3, 3}, &rng)}};
  const AttrMap conv = {{"kernel", "(3, 3)"}, {"pad", "(1, 1)"}, {"num_filter", "13"}, {"no_bias", "True"}};
  qv_ref::ConvParams p;
  p.kernel_h = p.kernel_w = 3;
  p.pad_h = p.pad_w = 1;
  for (const auto& [name, op] : std::vector<std::pair<std::string, char>>{
           {"broadcast_mul", '*'}, {"broadcast_add", '+'}, {"broadcast_sub", '-'}, {"broadcast_div", '/'}}) {
    for (const bool gate_first : {false, true}) {
      GraphBuilder g;
      const int data = g.Variable("data"), gate = g.Variable("gate");
      const int c1 = g.Op("Convolution", "c1", conv, {data, g.Variable("c1_weight")});
      const int out = gate_first ? g.Op(name, "op0", {}, {gate, c1}) : g.Op(name, "op0", {}, {c1, gate});
      AttrMap last = conv;
      last["num_filter"] = "4";
      g.Output(g.Op("Convolution", "c3", last, {out, g.Variable("c3_weight")}));
      const Tensor x = qv_test::Random({2, 3, 6, 5}, &rng), w = qv_test::Random({2, 13, 1, 1}, &rng, 0.5f, 2.f);
      const Tensor y1 = qv_ref::Convolution(x, params["c1_weight"], nullptr, p);
      const Tensor mixed = gate_first ? RefBinary(op, w, y1) : RefBinary(op, y1, w);
      const Tensor want = qv_ref::Convolution(mixed, params["c3_weight"], nullptr, p);
      // Data inputs come in MXNet's argument order, depth first from the output.
      const std::vector<Tensor> inputs = gate_first ? std::vector<Tensor>{w, x} : std::vector<Tensor>{x, w};
      ExpectClose(Run(g, inputs, params).at(0), want,
                  std::string("conv -> ") + name + (gate_first ? " (gate, conv)" : " (conv, gate)") + " -> conv", 1e-4);
    }
  }
}
