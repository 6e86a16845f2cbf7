// Reshape with MXNet's special codes, and expand_dims: the output keeps the input's values in
// row-major order, so the oracle is the expected shape (worked out by hand from MXNet's rules).
// Flatten against support/reference_ops.h.
#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

TEST_CASE("Reshape codes 0, -1, -2, -3, -4 and reverse give MXNet's shapes", "[ops][reshape]") {
  struct Case {
    Shape in;
    std::string shape;
    bool reverse;
    Shape want;
  };
  const std::vector<Case> cases = {
      {{2, 3, 4}, "(4, 6)", false, {4, 6}},
      {{2, 3, 4}, "(0, -1)", false, {2, 12}},          // 0 copies, -1 infers
      {{2, 3, 4}, "(-1, 0)", false, {8, 3}},           // -1 consumes dimension 0, so 0 copies the 3
      {{2, 3, 4}, "(-2,)", false, {2, 3, 4}},          // -2 copies the rest
      {{2, 3, 4}, "(2, -2)", false, {2, 3, 4}},        // a size consumes one dimension too
      {{2, 3, 4}, "(-3, 4)", false, {6, 4}},           // -3 merges two
      {{2, 3, 4, 5}, "(0, -3, 0)", false, {2, 12, 5}},
      {{2, 3, 4}, "(-4, 1, 2, -2)", false, {1, 2, 3, 4}},  // -4 splits one into two
      {{6, 4}, "(-4, -1, 2, 0)", false, {3, 2, 4}},
      {{2, 12}, "(0, -4, 3, -1)", false, {2, 3, 4}},
      {{10, 5, 4}, "(-1, 0)", true, {50, 4}},          // reverse: codes match dimensions from the right
      {{10, 5, 4}, "(-1, 0)", false, {40, 5}},
      {{2, 3, 4}, "(-1,)", false, {24}},
      {{2, 3, 4}, "[4, -1]", false, {4, 6}},           // list spelling
  };
  unsigned seed = 500;
  for (const Case& c : cases) {
    const Tensor x = RandomTensor(c.in, seed++);
    const std::string what = "Reshape " + qv_ref::ShapeToString(c.in) + " shape=" + c.shape + (c.reverse ? " reverse" : "");
    AttrMap attrs = {{"shape", c.shape}};
    if (c.reverse) attrs["reverse"] = "True";
    ExpectClose(RunUnary("Reshape", attrs, x), Tensor(c.want, x.data), what);
  }
  // The lower-case name, as mx.sym.reshape exports it.
  const Tensor x = RandomTensor({2, 3, 4}, 1);
  ExpectClose(RunUnary("reshape", {{"shape", "(0, -1)"}}, x), Tensor({2, 12}, x.data), "reshape (0, -1)");
}

TEST_CASE("Reshape after a convolution reads the blocked layout in row-major order", "[ops][reshape]") {
  std::mt19937 rng(510);
  std::map<std::string, Tensor> params = {{"c_weight", qv_test::Random({13, 3, 3, 3}, &rng)}};
  GraphBuilder g;
  const int data = g.Variable("data");
  const int conv = g.Op("Convolution", "c", {{"kernel", "(3, 3)"}, {"num_filter", "13"}, {"no_bias", "True"}},
                        {data, g.Variable("c_weight")});
  g.Output(g.Op("Reshape", "r", {{"shape", "(0, -3, -1)"}}, {conv}));
  const Tensor x = qv_test::Random({2, 3, 5, 6}, &rng);
  qv_ref::ConvParams p;
  p.kernel_h = p.kernel_w = 3;
  const Tensor y = qv_ref::Convolution(x, params["c_weight"], nullptr, p);
  ExpectClose(Run(g, {x}, params).at(0), Tensor({2, 13 * 3, 4}, y.data), "conv -> Reshape (0, -3, -1)");
}

TEST_CASE("Reshape refuses shapes that cannot be, naming the node", "[ops][reshape]") {
  const Tensor x = RandomTensor({2, 3, 4}, 2);
  ExpectMessage(FailureOf([&] { RunUnary("Reshape", {{"shape", "(5, -1)"}}, x); }), "op0", {"cannot reshape", "(2, 3, 4)"});
  ExpectMessage(FailureOf([&] { RunUnary("Reshape", {{"shape", "(-1, -1)"}}, x); }), "op0", {"more than one -1"});
  ExpectMessage(FailureOf([&] { RunUnary("Reshape", {{"shape", "(0, 0, 0, 0)"}}, x); }), "op0", {"more dimensions"});
  ExpectMessage(FailureOf([&] { RunUnary("Reshape", {{"shape", "(-4, 5, -1, -2)"}}, x); }), "op0", {"does not divide"});
  ExpectMessage(FailureOf([&] { RunUnary("Reshape", {{"shape", "(-5, 24)"}}, x); }), "op0", {"unknown code -5"});
  ExpectMessage(FailureOf([&] { RunUnary("Reshape", {}, x); }), "op0", {"'shape'"});
  ExpectMessage(FailureOf([&] { RunUnary("Reshape", {{"shape", "(-4, 2)"}}, x); }), "op0", {"-4 needs"});
}

TEST_CASE("expand_dims inserts a 1 at any axis, negative ones counted from the end", "[ops][reshape]") {
  const Tensor x = RandomTensor({2, 3, 4}, 3);
  const std::vector<std::pair<int, Shape>> cases = {
      {0, {1, 2, 3, 4}}, {1, {2, 1, 3, 4}}, {3, {2, 3, 4, 1}}, {-1, {2, 3, 4, 1}}, {-4, {1, 2, 3, 4}}, {-2, {2, 3, 1, 4}},
  };
  for (const auto& [axis, want] : cases)
    ExpectClose(RunUnary("expand_dims", {{"axis", std::to_string(axis)}}, x), Tensor(want, x.data),
                "expand_dims axis=" + std::to_string(axis));
  ExpectMessage(FailureOf([&] { RunUnary("expand_dims", {{"axis", "4"}}, x); }), "op0", {"axis 4", "out of range"});
  ExpectMessage(FailureOf([&] { RunUnary("expand_dims", {{"axis", "-5"}}, x); }), "op0", {"axis -5"});
}

TEST_CASE("Flatten matches the reference", "[ops][reshape]") {
  const std::vector<Shape> shapes = {{3, 5, 4, 4}, {1, 13}, {2, 3, 1, 7}, {1, 3, 7, 9}};
  unsigned seed = 600;
  for (const Shape& shape : shapes) {
    const std::string what = "Flatten x=" + ShapeStr(shape);
    RunCase(what, [&] {
      Net net(seed++);
      const int data = net.g.Variable("data");
      net.g.Output(net.g.Op("Flatten", "flatten0", {}, {data}));
      const Tensor x = qv_test::Random(shape, &net.rng);
      const std::vector<Tensor> out = RunSingleInput(net, x);
      REQUIRE(out.size() == 1);
      ExpectClose(out[0], qv_ref::Flatten(x), what);
    });
  }
}

TEST_CASE("squeeze removes the size-1 axes named, or all of them", "[ops][reshape]") {
  const Tensor x = RandomTensor({1, 3, 1, 4, 1}, 840);
  ExpectClose(RunUnary("squeeze", {}, x), Tensor({3, 4}, x.data), "squeeze all");
  ExpectClose(RunUnary("squeeze", {{"axis", "(0, -1)"}}, x), Tensor({3, 1, 4}, x.data), "squeeze (0, -1)");
  ExpectClose(RunUnary("squeeze", {{"axis", "2"}}, x), Tensor({1, 3, 4, 1}, x.data), "squeeze 2");
  const Tensor one = RandomTensor({1, 1}, 841);
  ExpectClose(RunUnary("squeeze", {}, one), Tensor({1}, one.data), "squeeze to (1,)");
  ExpectMessage(FailureOf([&] { RunUnary("squeeze", {{"axis", "1"}}, x); }), "op0", {"size 3", "size-1"});
  ExpectMessage(FailureOf([&] { RunUnary("squeeze", {{"axis", "5"}}, x); }), "op0", {"axis 5", "out of range"});
}

TEST_CASE("reshape_like takes rhs's shape, or a range of it in place of a range of lhs's", "[ops][reshape]") {
  auto like = [](const Tensor& lhs, const Tensor& rhs, const AttrMap& attrs) {
    GraphBuilder g;
    const int a = g.Variable("lhs"), b = g.Variable("rhs");
    g.Output(g.Op("reshape_like", "op0", attrs, {a, b}));
    return Run(g, {lhs, rhs}).at(0);
  };
  const Tensor x = RandomTensor({2, 12, 5}, 850);
  ExpectClose(like(x, Tensor({6, 20}), {}), Tensor({6, 20}, x.data), "reshape_like whole");
  ExpectClose(like(x, Tensor({9, 3, 4, 9}), {{"lhs_begin", "1"}, {"lhs_end", "2"}, {"rhs_begin", "1"}, {"rhs_end", "3"}}),
              Tensor({2, 3, 4, 5}, x.data), "reshape_like a middle range");
  ExpectClose(like(x, Tensor({7, 4, 6}), {{"lhs_end", "-1"}, {"rhs_begin", "-2"}, {"rhs_end", "None"}}),
              Tensor({4, 6, 5}, x.data), "reshape_like negative bounds");
  ExpectMessage(FailureOf([&] { like(x, Tensor({5, 5}), {}); }), "op0", {"another element count"});
  ExpectMessage(FailureOf([&] { like(x, Tensor({6, 20}), {{"lhs_begin", "4"}}); }), "op0", {"lhs_begin", "out of range"});
}
