// Concat along each dimension against the reference.
#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

TEST_CASE("Concat along a dimension matches the reference", "[ops][concat]") {
  struct Case {
    std::vector<Shape> xs;
    int64_t dim;
    bool spell_dim;
  };
  const std::vector<Case> cases = {
      {{{1, 3, 7, 9}, {1, 5, 7, 9}, {1, 13, 7, 9}}, 1, false},
      {{{3, 3, 7, 9}, {3, 16, 7, 9}}, 1, true},
      {{{1, 5, 4, 4}, {3, 5, 4, 4}}, 0, true},
      {{{3, 5, 2, 9}, {3, 5, 7, 9}}, 2, true},
      {{{3, 5, 7, 1}, {3, 5, 7, 8}, {3, 5, 7, 3}}, 3, true},
      {{{3, 13}, {3, 3}}, 1, false},
      {{{3, 13}}, 1, true},  // a single input
  };
  unsigned seed = 1000;
  for (const Case& c : cases) {
    std::string what = "Concat dim=" + std::to_string(c.dim) + " of";
    for (const Shape& s : c.xs) what += " " + ShapeStr(s);
    RunCase(what, [&] {
      Net net(seed++);
      std::vector<qv_test::Entry> inputs;
      std::vector<Tensor> xs;
      for (size_t i = 0; i < c.xs.size(); ++i) {
        inputs.emplace_back(net.g.Variable("data" + std::to_string(i)));
        xs.push_back(qv_test::Random(c.xs[i], &net.rng));
      }
      AttrMap attrs = {{"num_args", std::to_string(c.xs.size())}};
      if (c.spell_dim) attrs["dim"] = std::to_string(c.dim);
      net.g.Output(net.g.Op("Concat", "concat0", attrs, inputs));
      CompiledGraph op(net.g.ToJson(), net.params);
      REQUIRE(op.InputNames().size() == c.xs.size());
      const std::vector<Tensor> out = op.Run(xs);
      REQUIRE(out.size() == 1);
      ExpectClose(out[0], qv_ref::Concat(xs, c.dim), what);
    });
  }
}
