// sum, mean, max, min and prod against a double-precision reference that visits every element, with
// MXNet's axis / keepdims / exclude rules for the output shape (worked out by hand from MXNet 1.9.1's
// ReduceAxesShapeImpl).
#include <algorithm>
#include <cfloat>
#include <cmath>

#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

// Reduces x over the axes flagged in `reduced`; the result has x's rank with 1s there, reshaped to `out`.
Tensor RefReduce(const Tensor& x, const std::string& op, const std::vector<bool>& reduced, const Shape& out) {
  Shape kept = x.shape;
  for (size_t d = 0; d < kept.size(); ++d)
    if (reduced[d]) kept[d] = 1;
  Tensor y(kept);
  std::vector<double> acc(y.size(), op == "prod" ? 1.0 : op == "max" ? -DBL_MAX : op == "min" ? DBL_MAX : 0.0);
  std::vector<int64_t> count(y.size(), 0);
  const auto kept_strides = Strides(kept);
  for (int64_t i = 0; i < x.size(); ++i) {
    const auto idx = Unravel(i, x.shape);
    int64_t at = 0;
    for (size_t d = 0; d < idx.size(); ++d) at += (reduced[d] ? 0 : idx[d]) * kept_strides[d];
    const double v = x.data[i];
    if (op == "max") acc[at] = std::max(acc[at], v);
    else if (op == "min") acc[at] = std::min(acc[at], v);
    else if (op == "prod") acc[at] *= v;
    else acc[at] += v;
    ++count[at];
  }
  for (int64_t i = 0; i < y.size(); ++i) y.data[i] = static_cast<float>(op == "mean" ? acc[i] / count[i] : acc[i]);
  return Tensor(out, y.data);
}

}  // namespace

TEST_CASE("Reductions follow MXNet's axis, keepdims and exclude rules", "[ops][reduce]") {
  struct Case {
    AttrMap attrs;
    std::vector<bool> reduced;
    Shape out;
  };
  const Shape in = {2, 3, 4, 5};
  const std::vector<Case> cases = {
      {{}, {true, true, true, true}, {1}},                                         // every axis
      {{{"keepdims", "True"}}, {true, true, true, true}, {1, 1, 1, 1}},
      {{{"axis", "()"}}, {true, true, true, true}, {1}},                           // () is every axis too
      {{{"axis", "1"}}, {false, true, false, false}, {2, 4, 5}},
      {{{"axis", "(2, 3)"}, {"keepdims", "True"}}, {false, false, true, true}, {2, 3, 1, 1}},  // global pooling
      {{{"axis", "-1"}}, {false, false, false, true}, {2, 3, 4}},
      {{{"axis", "(0, -2)"}}, {true, false, true, false}, {3, 5}},
      {{{"axis", "1"}, {"exclude", "True"}}, {true, false, true, true}, {3}},       // every axis but 1
      {{{"axis", "(1, 3)"}, {"exclude", "True"}, {"keepdims", "True"}}, {true, false, true, false}, {1, 3, 1, 5}},
  };
  unsigned seed = 900;
  for (const std::string op : {"sum", "mean", "max", "min", "prod"}) {
    for (const Case& c : cases) {
      // prod over many elements drifts far from 1 in float32: values near 1 keep it representable.
      const Tensor x = op == "prod" ? RandomTensor(in, seed++, 0.9f, 1.1f) : RandomTensor(in, seed++);
      std::string what = op;
      for (const auto& [k, v] : c.attrs) what += " " + k + "=" + v;
      ExpectClose(RunUnary(op, c.attrs, x), RefReduce(x, op, c.reduced, c.out), what, 1e-5);
    }
  }
  // MXNet's legacy names.
  const Tensor x = RandomTensor({3, 4}, 950);
  ExpectClose(RunUnary("sum_axis", {{"axis", "1"}}, x), RefReduce(x, "sum", {false, true}, {3}), "sum_axis", 1e-5);
  ExpectClose(RunUnary("max_axis", {{"axis", "0"}}, x), RefReduce(x, "max", {true, false}, {4}), "max_axis", 0.0);
  // Reducing only size-1 axes changes nothing.
  const Tensor y = RandomTensor({3, 1, 4}, 951);
  ExpectClose(RunUnary("mean", {{"axis", "1"}, {"keepdims", "True"}}, y), y, "mean over a size-1 axis", 0.0);
}

TEST_CASE("Reductions over one run of axes match the reference across lane blocks and threads", "[ops][reduce]") {
  struct Case {
    Shape in;
    AttrMap attrs;
    std::vector<bool> reduced;
    Shape out;
  };
  const std::vector<Case> cases = {
      {{2, 2, 64, 7, 7}, {{"axis", "1"}}, {false, true, false, false, false}, {2, 64, 7, 7}},  // ResNeSt's split sum
      {{3, 700}, {{"axis", "-1"}}, {false, true}, {3}},                                 // contiguous rows
      {{5, 13}, {{"axis", "1"}}, {false, true}, {5}},                                   // rows too short to split
      {{4, 1, 3, 1, 5, 1}, {{"axis", "(1, 2, 3)"}}, {false, true, true, true, false, false}, {4, 5, 1}},
      {{2, 3, 300}, {{"axis", "(0, 1)"}, {"keepdims", "True"}}, {true, true, false}, {1, 1, 300}},
      {{6, 64, 3, 3}, {{"axis", "(2, 3)"}, {"keepdims", "True"}}, {false, false, true, true}, {6, 64, 1, 1}},
  };
  unsigned seed = 980;
  for (const std::string op : {"sum", "mean", "max", "min", "prod"}) {
    for (const Case& c : cases) {
      const Tensor x = op == "prod" ? RandomTensor(c.in, seed++, 0.95f, 1.05f) : RandomTensor(c.in, seed++);
      std::string what = op + " of " + ShapeStr(c.in);
      for (const auto& [k, v] : c.attrs) what += " " + k + "=" + v;
      ExpectClose(RunUnary(op, c.attrs, x), RefReduce(x, op, c.reduced, c.out), what, 1e-5);
    }
  }
}

TEST_CASE("max and min pass on a NaN in what they reduce, as MXNet's reducers do", "[ops][reduce]") {
  for (const std::string op : {"max", "min"}) {
    Tensor rows = RandomTensor({2, 40}, 990);  // contiguous rows: NaN in row 0 only
    rows.data[17] = std::nanf("");
    const Tensor by_row = RunUnary(op, {{"axis", "1"}}, rows);
    CHECK(std::isnan(by_row.data[0]));
    CHECK_FALSE(std::isnan(by_row.data[1]));
    Tensor columns = RandomTensor({40, 2}, 991);  // strided lanes: NaN in column 1 only
    columns.data[2 * 30 + 1] = std::nanf("");
    const Tensor by_column = RunUnary(op, {{"axis", "0"}}, columns);
    CHECK_FALSE(std::isnan(by_column.data[0]));
    CHECK(std::isnan(by_column.data[1]));
  }
}

TEST_CASE("A reduction after a convolution reads its blocked output", "[ops][reduce]") {
  std::mt19937 rng(960);
  std::map<std::string, Tensor> params = {{"c_weight", qv_test::Random({16, 3, 3, 3}, &rng)}};
  GraphBuilder g;
  const int conv = g.Op("Convolution", "c", {{"kernel", "(3, 3)"}, {"num_filter", "16"}, {"no_bias", "True"}},
                        {g.Variable("data"), g.Variable("c_weight")});
  g.Output(g.Op("mean", "m", {{"axis", "(2, 3)"}, {"keepdims", "True"}}, {conv}));
  const Tensor x = qv_test::Random({2, 3, 9, 9}, &rng);
  qv_ref::ConvParams p;
  p.kernel_h = p.kernel_w = 3;
  const Tensor y = qv_ref::Convolution(x, params["c_weight"], nullptr, p);
  ExpectClose(Run(g, {x}, params).at(0), RefReduce(y, "mean", {false, false, true, true}, {2, 16, 1, 1}),
              "conv -> mean", 1e-5);
}

TEST_CASE("Reductions refuse axes out of range or repeated, naming the node", "[ops][reduce]") {
  const Tensor x = RandomTensor({2, 3}, 970);
  ExpectMessage(FailureOf([&] { RunUnary("sum", {{"axis", "2"}}, x); }), "op0", {"axis 2", "out of range"});
  ExpectMessage(FailureOf([&] { RunUnary("max", {{"axis", "-3"}}, x); }), "op0", {"axis -3", "out of range"});
  ExpectMessage(FailureOf([&] { RunUnary("mean", {{"axis", "(1, -1)"}}, x); }), "op0", {"repeats an axis"});
}
