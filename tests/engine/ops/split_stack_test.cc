// SliceChannel (split) and stack against index-by-index references (numpy.split / numpy.stack).
#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

// Part p of x cut into `parts` along `axis`: output index i along the axis reads p * size + i.
Tensor RefPart(const Tensor& x, int64_t axis, int64_t parts, int64_t p) {
  Shape out = x.shape;
  out[axis] /= parts;
  Tensor y(out);
  const auto strides = Strides(x.shape);
  for (int64_t i = 0; i < y.size(); ++i) {
    auto idx = Unravel(i, out);
    idx[axis] += p * out[axis];
    int64_t at = 0;
    for (size_t d = 0; d < idx.size(); ++d) at += idx[d] * strides[d];
    y.data[i] = x.data[at];
  }
  return y;
}

std::vector<Tensor> RunSplit(const Tensor& x, const AttrMap& attrs, int parts) {
  GraphBuilder g;
  const int split = g.Op("SliceChannel", "op0", attrs, {g.Variable("data")});
  for (int p = 0; p < parts; ++p) g.Output({split, p});
  return Run(g, {x});
}

Tensor RunStack(const std::vector<Tensor>& xs, const std::string& axis) {
  GraphBuilder g;
  std::vector<qv_test::Entry> inputs;
  for (size_t i = 0; i < xs.size(); ++i) inputs.push_back(g.Variable("x" + std::to_string(i)));
  g.Output(g.Op("stack", "op0", {{"axis", axis}, {"num_args", std::to_string(xs.size())}}, inputs));
  return Run(g, xs).at(0);
}

}  // namespace

TEST_CASE("SliceChannel cuts equal parts along an axis, squeezing it on request", "[ops][split]") {
  const Tensor x = RandomTensor({2, 6, 3, 4}, 980);
  for (const auto& [axis, parts] : std::vector<std::pair<int64_t, int>>{{1, 3}, {0, 2}, {3, 4}, {1, 1}}) {
    const auto got = RunSplit(x, {{"num_outputs", std::to_string(parts)}, {"axis", std::to_string(axis)}}, parts);
    REQUIRE(got.size() == static_cast<size_t>(parts));
    for (int p = 0; p < parts; ++p)
      ExpectClose(got[p], RefPart(x, axis, parts, p), "split axis " + std::to_string(axis) + " part " + std::to_string(p),
                  0.0);
  }
  // The default axis is 1; negative axes count from the end; split is the other name.
  const auto by_default = RunSplit(x, {{"num_outputs", "2"}}, 2);
  ExpectClose(by_default[1], RefPart(x, 1, 2, 1), "split default axis", 0.0);
  GraphBuilder g;
  const int split = g.Op("split", "op0", {{"num_outputs", "2"}, {"axis", "-1"}}, {g.Variable("data")});
  g.Output({split, 1});
  ExpectClose(Run(g, {x}).at(0), RefPart(x, 3, 2, 1), "split axis -1", 0.0);
  // An LSTM cell's gates: squeeze_axis drops the cut axis.
  const Tensor gates = RandomTensor({3, 4, 5}, 981);
  const auto squeezed = RunSplit(gates, {{"num_outputs", "4"}, {"axis", "1"}, {"squeeze_axis", "True"}}, 4);
  for (int p = 0; p < 4; ++p) {
    const Tensor want = RefPart(gates, 1, 4, p);
    ExpectClose(squeezed[p], Tensor({3, 5}, want.data), "squeezed part " + std::to_string(p), 0.0);
  }
}

TEST_CASE("SliceChannel refuses uneven parts and impossible squeezes, naming the node", "[ops][split]") {
  const Tensor x = RandomTensor({2, 6}, 985);
  ExpectMessage(FailureOf([&] { RunSplit(x, {{"num_outputs", "4"}}, 4); }), "op0", {"4 equal parts"});
  ExpectMessage(FailureOf([&] { RunSplit(x, {{"num_outputs", "3"}, {"squeeze_axis", "1"}}, 3); }), "op0",
                {"squeeze_axis"});
  ExpectMessage(FailureOf([&] { RunSplit(x, {{"num_outputs", "0"}}, 1); }), "op0", {"num_outputs", "between 1"});
  ExpectMessage(FailureOf([&] { RunSplit(x, {{"num_outputs", "2"}, {"axis", "2"}}, 2); }), "op0", {"out of range"});
}

TEST_CASE("stack joins inputs along a new axis, at any position", "[ops][stack]") {
  const std::vector<Tensor> xs = {RandomTensor({2, 3, 4}, 990), RandomTensor({2, 3, 4}, 991), RandomTensor({2, 3, 4}, 992)};
  for (int64_t axis : {0, 1, 2, 3, -1, -4}) {
    const int64_t a = axis < 0 ? axis + 4 : axis;
    Shape out = xs[0].shape;
    out.insert(out.begin() + a, 3);
    Tensor want(out);
    for (int64_t i = 0; i < want.size(); ++i) {
      auto idx = Unravel(i, out);
      const int64_t which = idx[a];
      idx.erase(idx.begin() + a);
      int64_t at = 0;
      const auto strides = Strides(xs[0].shape);
      for (size_t d = 0; d < idx.size(); ++d) at += idx[d] * strides[d];
      want.data[i] = xs[which].data[at];
    }
    ExpectClose(RunStack(xs, std::to_string(axis)), want, "stack axis " + std::to_string(axis), 0.0);
  }
  ExpectMessage(FailureOf([&] { RunStack({xs[0], RandomTensor({2, 3, 5}, 993)}, "0"); }), "op0", {"one shape"});
  ExpectMessage(FailureOf([&] { RunStack(xs, "4"); }), "op0", {"out of range"});
}
