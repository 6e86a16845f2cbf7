// Divisions of integer tensors truncate as MXNet's integer division does (graph/integer_division.cc):
// the pattern of GluonCV's CenterNet decoder, indices cast to int64 divided by a size that shape_array
// gives, against the same division of float32 tensors, which keeps the fraction.
#include <cmath>

#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

TEST_CASE("integer tensors divide to truncated quotients, float32 ones do not", "[graph][integer_division]") {
  GraphBuilder g;
  const int x = g.Variable("data");
  const int ints = g.Op("Cast", "to_int", {{"dtype", "int64"}}, {x});
  const int shape = g.Op("shape_array", "shape", {}, {x});  // (2, 3): [2, 3]
  const int dims = g.Op("SliceChannel", "dims", {{"num_outputs", "2"}, {"axis", "0"}}, {shape});
  const int size = g.Op("elemwise_mul", "size", {}, {{dims, 0}, {dims, 1}});  // 6, still an integer
  const int quotient = g.Op("broadcast_div", "quotient", {}, {ints, size});
  g.Output(g.Op("Cast", "back", {{"dtype", "float32"}}, {quotient}));
  g.Output(g.Op("broadcast_div", "fraction", {}, {x, size}));  // data is float32: no truncation
  Tensor data({2, 3});
  data.data = {-13.5f, -6.f, -5.f, 5.9f, 12.f, 20.f};
  const auto outs = Run(g, {data});
  Tensor quotients({2, 3}), fractions({2, 3});
  quotients.data = {-2.f, -1.f, 0.f, 0.f, 2.f, 3.f};  // trunc(trunc(v) / 6), C++'s int64 division
  for (size_t i = 0; i < data.data.size(); ++i) fractions.data[i] = data.data[i] / 6.f;
  ExpectClose(outs.at(0), quotients, "integer division", 0);
  ExpectClose(outs.at(1), fractions, "float32 division", 0);
}

TEST_CASE("scalar operators on integer tensors truncate the scalar, and divisions the quotient", "[graph][integer_division]") {
  // As MXNet 1.9.1 computes int64 [7, -7]: / 2.5 -> [3, -3], * 2.5 -> [14, -14], 10 / x -> [1, -1],
  // % 2.5 -> [1, 1]; a float32 tensor keeps the fractions (7.5 / 2 = 3.75).
  GraphBuilder g;
  const int x = g.Variable("data");
  const int ints = g.Op("Cast", "to_int", {{"dtype", "int64"}}, {x});
  g.Output(g.Op("_div_scalar", "div", {{"scalar", "2.5"}}, {ints}));
  g.Output(g.Op("_mul_scalar", "mul", {{"scalar", "2.5"}}, {ints}));
  g.Output(g.Op("_rdiv_scalar", "rdiv", {{"scalar", "10"}}, {ints}));
  g.Output(g.Op("_mod_scalar", "mod", {{"scalar", "2.5"}}, {ints}));
  g.Output(g.Op("_div_scalar", "float_div", {{"scalar", "2"}}, {x}));
  Tensor data({2});
  data.data = {7.5f, -7.5f};
  const auto outs = Run(g, {data});
  const std::vector<std::vector<float>> want = {{3, -3}, {14, -14}, {1, -1}, {1, 1}, {3, -3}};
  for (size_t o = 0; o < want.size(); ++o) {
    Tensor w({2});
    w.data = want[o];
    if (o == 4) w.data = {3.75f, -3.75f};
    ExpectClose(outs.at(o), w, "output " + std::to_string(o), 0);
  }
}

TEST_CASE("integer tensors stay integers through identities, reverse, clip and comparisons", "[graph][integer_division]") {
  // MXNet 1.9.1 on int64 [7, -7, 9, 2] divided by int64 2: reverse -> [1, 4, -3, 3], _copy and
  // BlockGrad -> [3, -3, 4, 1], square -> [24, 24, 40, 2]; clip(0.5, 7.5) of int32 [-7, -1, 0, 3, 7, 9]
  // clips to the bounds truncated, (0, 7): [0, 0, 0, 3, 7, 7]; == 2.5 compares with 2: [0, 0, 0, 1].
  GraphBuilder g;
  const int x = g.Variable("data");
  const int two = g.Variable("two");
  const int ints = g.Op("Cast", "to_int", {{"dtype", "int64"}}, {x});
  const int divisor = g.Op("Cast", "two_int", {{"dtype", "int64"}}, {two});
  auto halve = [&](const std::string& op, qv_test::AttrMap attrs) {
    const int y = g.Op(op, op, attrs, {ints});
    g.Output(g.Op("broadcast_div", op + "_halved", {}, {y, divisor}));
  };
  halve("reverse", {{"axis", "0"}});
  halve("_copy", {});
  halve("BlockGrad", {});
  halve("square", {});
  g.Output(g.Op("_equal_scalar", "equal", {{"scalar", "2.5"}}, {ints}));
  Tensor data({4}), divisor_value({1});
  data.data = {7, -7, 9, 2};
  divisor_value.data = {2};
  const auto outs = Run(g, {data, divisor_value});
  const std::vector<std::vector<float>> want = {{1, 4, -3, 3}, {3, -3, 4, 1}, {3, -3, 4, 1}, {24, 24, 40, 2}, {0, 0, 0, 1}};
  for (size_t o = 0; o < want.size(); ++o) {
    Tensor w({4});
    w.data = want[o];
    ExpectClose(outs.at(o), w, "output " + std::to_string(o), 0);
  }

  GraphBuilder c;
  c.Output(c.Op("clip", "clip", {{"a_min", "0.5"}, {"a_max", "7.5"}},
                {c.Op("Cast", "to_int", {{"dtype", "int32"}}, {c.Variable("data")})}));
  Tensor values({6}), clipped({6});
  values.data = {-7, -1, 0, 3, 7, 9};
  clipped.data = {0, 0, 0, 3, 7, 7};
  ExpectClose(Run(c, {values}).at(0), clipped, "clip of int32", 0);
}
