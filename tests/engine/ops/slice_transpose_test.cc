// transpose, SwapAxis, reverse, slice and slice_axis against index-by-index references.
#include <utility>

#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

Tensor RefTranspose(const Tensor& x, const std::vector<int64_t>& axes) {
  Shape out;
  for (int64_t a : axes) out.push_back(x.shape[a]);
  Tensor y(out);
  const auto in_strides = Strides(x.shape);
  for (int64_t i = 0; i < y.size(); ++i) {
    const auto idx = Unravel(i, out);
    int64_t at = 0;
    for (size_t d = 0; d < axes.size(); ++d) at += idx[d] * in_strides[axes[d]];
    y.data[i] = x.data[at];
  }
  return y;
}

// Python's range(begin, end, step) per axis, with the bounds already resolved.
struct Range {
  int64_t begin, end, step;
};

Tensor RefSlice(const Tensor& x, const std::vector<Range>& ranges) {
  std::vector<std::vector<int64_t>> picks;
  Shape out;
  for (size_t d = 0; d < x.shape.size(); ++d) {
    std::vector<int64_t> p;
    const Range r = d < ranges.size() ? ranges[d] : Range{0, x.shape[d], 1};
    for (int64_t i = r.begin; r.step > 0 ? i < r.end : i > r.end; i += r.step) p.push_back(i);
    out.push_back(static_cast<int64_t>(p.size()));
    picks.push_back(p);
  }
  Tensor y(out);
  const auto in_strides = Strides(x.shape);
  for (int64_t i = 0; i < y.size(); ++i) {
    const auto idx = Unravel(i, out);
    int64_t at = 0;
    for (size_t d = 0; d < idx.size(); ++d) at += picks[d][idx[d]] * in_strides[d];
    y.data[i] = x.data[at];
  }
  return y;
}

}  // namespace

TEST_CASE("transpose matches the reference, default axes reversed", "[ops][transpose]") {
  const Tensor x = RandomTensor({2, 3, 4, 5}, 600);
  const std::vector<std::vector<int64_t>> perms = {{0, 2, 3, 1}, {3, 2, 1, 0}, {1, 0, 2, 3}, {0, 1, 2, 3}, {2, 0, 3, 1}};
  for (const auto& axes : perms) {
    std::string text = "(";
    for (size_t i = 0; i < axes.size(); ++i) text += (i ? ", " : "") + std::to_string(axes[i]);
    ExpectClose(RunUnary("transpose", {{"axes", text + ")"}}, x), RefTranspose(x, axes), "transpose " + text + ")");
  }
  ExpectClose(RunUnary("transpose", {}, x), RefTranspose(x, {3, 2, 1, 0}), "transpose, no axes");
  const Tensor m = RandomTensor({3, 7}, 601);
  ExpectClose(RunUnary("transpose", {{"axes", "()"}}, m), RefTranspose(m, {1, 0}), "transpose 2-D");
}

TEST_CASE("transpose refuses axes that are not a permutation, naming the node", "[ops][transpose]") {
  const Tensor x = RandomTensor({2, 3, 4}, 602);
  ExpectMessage(FailureOf([&] { RunUnary("transpose", {{"axes", "(0, 1)"}}, x); }), "op0", {"axes"});
  ExpectMessage(FailureOf([&] { RunUnary("transpose", {{"axes", "(0, 1, 1)"}}, x); }), "op0", {"repeats axis 1"});
  // MXNet 1.x refuses negative axes in transpose too.
  ExpectMessage(FailureOf([&] { RunUnary("transpose", {{"axes", "(0, -1, 1)"}}, x); }), "op0", {"outside"});
}

TEST_CASE("slice: None bounds, negative indices, steps both ways, clamping", "[ops][slice]") {
  const Tensor x = RandomTensor({4, 5, 6, 7}, 610);
  struct Case {
    AttrMap attrs;
    std::vector<Range> want;
  };
  const std::vector<Case> cases = {
      {{{"begin", "(0, 1)"}, {"end", "(2, 4)"}}, {{0, 2, 1}, {1, 4, 1}}},
      {{{"begin", "(None, 1, 2)"}, {"end", "(None, 5, 6)"}, {"step", "(1, 2, 3)"}}, {{0, 4, 1}, {1, 5, 2}, {2, 6, 3}}},
      {{{"begin", "(1, -1)"}, {"end", "(None, 0)"}, {"step", "(None, -1)"}}, {{1, 4, 1}, {4, 0, -1}}},
      {{{"begin", "(-1,)"}, {"end", "(None,)"}, {"step", "(-1,)"}}, {{3, -1, -1}}},  // reversed, through index 0
      {{{"begin", "(None, None, -2)"}, {"end", "(None, None, 0)"}, {"step", "(1, 1, -2)"}}, {{0, 4, 1}, {0, 5, 1}, {4, 0, -2}}},
      {{{"begin", "(0,)"}, {"end", "(10,)"}}, {{0, 4, 1}}},                         // end clamped
      {{{"begin", "(-10, 2)"}, {"end", "(3, -1)"}}, {{0, 3, 1}, {2, 4, 1}}},         // begin clamped, negative end
      {{{"begin", "[1, 0, 0, 6]"}, {"end", "[2, 5, 6, 7]"}}, {{1, 2, 1}, {0, 5, 1}, {0, 6, 1}, {6, 7, 1}}},
  };
  for (const Case& c : cases) {
    std::string what = "slice";
    for (const auto& kv : c.attrs) what += " " + kv.first + "=" + kv.second;
    ExpectClose(RunUnary("slice", c.attrs, x), RefSlice(x, c.want), what);
  }
}

TEST_CASE("slice_axis: negative axis and begin, end None", "[ops][slice]") {
  const Tensor x = RandomTensor({4, 5, 6}, 620);
  ExpectClose(RunUnary("slice_axis", {{"axis", "1"}, {"begin", "1"}, {"end", "3"}}, x), RefSlice(x, {{0, 4, 1}, {1, 3, 1}}),
              "slice_axis 1 [1, 3)");
  ExpectClose(RunUnary("slice_axis", {{"axis", "-1"}, {"begin", "-4"}, {"end", "None"}}, x),
              RefSlice(x, {{0, 4, 1}, {0, 5, 1}, {2, 6, 1}}), "slice_axis -1 [-4, None)");
  ExpectClose(RunUnary("slice_axis", {{"axis", "0"}, {"begin", "0"}, {"end", "-1"}}, x), RefSlice(x, {{0, 3, 1}}),
              "slice_axis 0 [0, -1)");
}

TEST_CASE("slice and slice_axis refuse empty or malformed ranges, naming the node", "[ops][slice]") {
  const Tensor x = RandomTensor({4, 5}, 630);
  ExpectMessage(FailureOf([&] { RunUnary("slice", {{"begin", "(2,)"}, {"end", "(2,)"}}, x); }), "op0", {"empty"});
  ExpectMessage(FailureOf([&] { RunUnary("slice", {{"begin", "(0,)"}, {"end", "(2,)"}, {"step", "(0,)"}}, x); }), "op0",
                {"step"});
  ExpectMessage(FailureOf([&] { RunUnary("slice", {{"begin", "(0, 0, 0)"}, {"end", "(1, 1, 1)"}}, x); }), "op0",
                {"begin has 3 entries"});
  ExpectMessage(FailureOf([&] { RunUnary("slice", {{"begin", "(0, 0)"}, {"end", "(1,)"}}, x); }), "op0",
                {"same length"});
  ExpectMessage(FailureOf([&] { RunUnary("slice", {{"begin", "(a,)"}, {"end", "(1,)"}}, x); }), "op0", {"begin"});
  ExpectMessage(FailureOf([&] { RunUnary("slice_axis", {{"axis", "1"}, {"begin", "3"}, {"end", "2"}}, x); }), "op0",
                {"non-empty range"});
  ExpectMessage(FailureOf([&] { RunUnary("slice_axis", {{"axis", "2"}, {"begin", "0"}, {"end", "1"}}, x); }), "op0",
                {"axis 2", "out of range"});
}

namespace {

Tensor RunSliceLike(const Tensor& x, const Tensor& like, const AttrMap& attrs) {
  GraphBuilder g;
  const int data = g.Variable("data"), shape_like = g.Variable("like");
  g.Output(g.Op("slice_like", "op0", attrs, {data, shape_like}));
  return Run(g, {x, like}).at(0);
}

}  // namespace

TEST_CASE("slice_like: the leading part along the given axes, or all of them", "[ops][slice]") {
  const Tensor x = RandomTensor({1, 6, 5, 4}, 640);
  ExpectClose(RunSliceLike(x, Tensor({3, 2, 3, 2}), {{"axes", "(2, 3)"}}), RefSlice(x, {{0, 1, 1}, {0, 6, 1}, {0, 3, 1}, {0, 2, 1}}),
              "slice_like axes (2, 3)");
  ExpectClose(RunSliceLike(x, Tensor({1, 2, 3, 4}), {{"axes", "(-3,)"}}), RefSlice(x, {{0, 1, 1}, {0, 2, 1}}),
              "slice_like axes (-3,)");
  ExpectClose(RunSliceLike(x, Tensor({1, 4, 2, 1}), {}), RefSlice(x, {{0, 1, 1}, {0, 4, 1}, {0, 2, 1}, {0, 1, 1}}),
              "slice_like all axes");
  ExpectMessage(FailureOf([&] { RunSliceLike(x, Tensor({1, 7, 1, 1}), {{"axes", "(1,)"}}); }), "op0", {"larger"});
  ExpectMessage(FailureOf([&] { RunSliceLike(x, Tensor({1, 2}), {}); }), "op0", {"rank"});
  ExpectMessage(FailureOf([&] { RunSliceLike(x, Tensor({1, 2, 2, 2}), {{"axes", "(4,)"}}); }), "op0", {"out of range"});
}

// SwapAxis against an index-by-index reference.
namespace {

Tensor RefSwap(const Tensor& x, int64_t a, int64_t b) {
  Shape out = x.shape;
  std::swap(out[a], out[b]);
  Tensor y(out);
  const auto in_strides = Strides(x.shape);
  for (int64_t i = 0; i < y.size(); ++i) {
    auto idx = Unravel(i, out);
    std::swap(idx[a], idx[b]);
    int64_t at = 0;
    for (size_t d = 0; d < out.size(); ++d) at += idx[d] * in_strides[d];
    y.data[i] = x.data[at];
  }
  return y;
}

}  // namespace

TEST_CASE("SwapAxis exchanges two axes; negative axes count from the end; equal axes copy", "[ops][swapaxis]") {
  const Tensor x = RandomTensor({2, 3, 4, 5}, 830);
  ExpectClose(RunUnary("SwapAxis", {{"dim1", "0"}, {"dim2", "1"}}, x), RefSwap(x, 0, 1), "SwapAxis 0 1", 0.0);
  ExpectClose(RunUnary("SwapAxis", {{"dim1", "3"}, {"dim2", "1"}}, x), RefSwap(x, 1, 3), "SwapAxis 3 1", 0.0);
  ExpectClose(RunUnary("swapaxes", {{"dim1", "-1"}, {"dim2", "0"}}, x), RefSwap(x, 0, 3), "swapaxes -1 0", 0.0);
  ExpectClose(RunUnary("SwapAxis", {{"dim1", "2"}, {"dim2", "2"}}, x), x, "SwapAxis 2 2", 0.0);
  ExpectClose(RunUnary("SwapAxis", {}, x), x, "SwapAxis defaults (0, 0)", 0.0);
  ExpectMessage(FailureOf([&] { RunUnary("SwapAxis", {{"dim1", "4"}, {"dim2", "0"}}, x); }), "op0",
                {"dim1 4", "out of range"});
}

TEST_CASE("reverse: one or several axes, an axis named twice reversed twice; flip is its alias", "[ops][reverse]") {
  const Tensor x = RandomTensor({2, 3, 4}, 840);
  auto ref = [&](const std::vector<bool>& flipped) {
    Tensor y(x.shape);
    for (int64_t i = 0; i < x.size(); ++i) {
      std::vector<int64_t> c = Unravel(i, x.shape);
      for (size_t d = 0; d < c.size(); ++d)
        if (flipped[d]) c[d] = x.shape[d] - 1 - c[d];
      y.data[(c[0] * 3 + c[1]) * 4 + c[2]] = x.data[i];
    }
    return y;
  };
  ExpectClose(RunUnary("reverse", {{"axis", "1"}}, x), ref({false, true, false}), "axis 1", 0.0);
  ExpectClose(RunUnary("reverse", {{"axis", "(0, 2)"}}, x), ref({true, false, true}), "axes (0, 2)", 0.0);
  ExpectClose(RunUnary("flip", {{"axis", "(2,)"}}, x), ref({false, false, true}), "flip (2,)", 0.0);
  // MXNet 1.9.1 prints [[2, 2, 0], [1, 5, 3]] for reverse([[1, 5, 3], [2, 2, 0]], axis=(0, 1, 1)).
  ExpectClose(RunUnary("reverse", {{"axis", "(0, 1, 1)"}}, x), ref({true, false, false}), "axes (0, 1, 1)", 0.0);
  ExpectMessage(FailureOf([&] { RunUnary("reverse", {{"axis", "-1"}}, x); }), "op0", {"axis -1", "outside 0..2"});
  ExpectMessage(FailureOf([&] { RunUnary("reverse", {{"axis", "3"}}, x); }), "op0", {"axis 3"});
  ExpectMessage(FailureOf([&] { RunUnary("reverse", {}, x); }), "op0", {"axis"});
}
