// broadcast_axis, broadcast_to and broadcast_like against an index-by-index reference: output index i
// along axis d reads input index i, or 0 where the input's axis has size 1.
#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

Tensor RefBroadcast(const Tensor& x, const Shape& out) {
  Tensor y(out);
  const auto in_strides = Strides(x.shape);
  for (int64_t i = 0; i < y.size(); ++i) {
    const auto idx = Unravel(i, out);
    int64_t at = 0;
    for (size_t d = 0; d < out.size(); ++d) at += (x.shape[d] == 1 ? 0 : idx[d]) * in_strides[d];
    y.data[i] = x.data[at];
  }
  return y;
}

Tensor RunLike(const Tensor& lhs, const Tensor& rhs, const AttrMap& attrs) {
  GraphBuilder g;
  const int a = g.Variable("lhs"), b = g.Variable("rhs");
  g.Output(g.Op("broadcast_like", "op0", attrs, {a, b}));
  return Run(g, {lhs, rhs}).at(0);
}

}  // namespace

TEST_CASE("broadcast_axis grows size-1 axes, negative ones too, under both names", "[ops][broadcast]") {
  const Tensor x = RandomTensor({2, 1, 3, 1}, 800);
  ExpectClose(RunUnary("broadcast_axis", {{"axis", "(1, 3)"}, {"size", "(4, 5)"}}, x), RefBroadcast(x, {2, 4, 3, 5}),
              "broadcast_axis (1, 3)", 0.0);
  ExpectClose(RunUnary("broadcast_axes", {{"axis", "-1"}, {"size", "6"}}, x), RefBroadcast(x, {2, 1, 3, 6}),
              "broadcast_axes -1", 0.0);
  // BERT's attention mask: (batch, 1, length) grown along axis 1.
  const Tensor mask = RandomTensor({3, 1, 7}, 801);
  ExpectClose(RunUnary("broadcast_axis", {{"axis", "1"}, {"size", "7"}}, mask), RefBroadcast(mask, {3, 7, 7}),
              "broadcast_axis mask", 0.0);
  ExpectMessage(FailureOf([&] { RunUnary("broadcast_axis", {{"axis", "(0,)"}, {"size", "(4,)"}}, x); }), "op0",
                {"size 2", "only size-1 axes"});
  ExpectMessage(FailureOf([&] { RunUnary("broadcast_axis", {{"axis", "(1, 3)"}, {"size", "(4,)"}}, x); }), "op0",
                {"as many entries"});
  ExpectMessage(FailureOf([&] { RunUnary("broadcast_axis", {{"axis", "4"}, {"size", "2"}}, x); }), "op0",
                {"axis 4", "out of range"});
}

TEST_CASE("broadcast_to: a 0 keeps the size, others must match or grow a 1", "[ops][broadcast]") {
  const Tensor x = RandomTensor({1, 3, 1}, 810);
  ExpectClose(RunUnary("broadcast_to", {{"shape", "(4, 0, 5)"}}, x), RefBroadcast(x, {4, 3, 5}), "broadcast_to", 0.0);
  ExpectClose(RunUnary("broadcast_to", {{"shape", "(1, 3, 1)"}}, x), x, "broadcast_to itself", 0.0);
  ExpectMessage(FailureOf([&] { RunUnary("broadcast_to", {{"shape", "(4, 2, 5)"}}, x); }), "op0", {"cannot broadcast"});
  ExpectMessage(FailureOf([&] { RunUnary("broadcast_to", {{"shape", "(4, 5)"}}, x); }), "op0",
                {"number of dimensions"});
}

TEST_CASE("broadcast_like: to rhs's shape, or along chosen axes", "[ops][broadcast]") {
  const Tensor x = RandomTensor({2, 1, 1, 4}, 820);
  ExpectClose(RunLike(x, Tensor({2, 3, 5, 4}), {}), RefBroadcast(x, {2, 3, 5, 4}), "broadcast_like", 0.0);
  ExpectClose(RunLike(x, Tensor({6, 7}), {{"lhs_axes", "(1, -2)"}, {"rhs_axes", "(0, 1)"}}),
              RefBroadcast(x, {2, 6, 7, 4}), "broadcast_like axes", 0.0);
  ExpectMessage(FailureOf([&] { RunLike(x, Tensor({3, 3, 5, 4}), {}); }), "op0", {"cannot broadcast"});
  ExpectMessage(FailureOf([&] { RunLike(x, Tensor({2, 3}), {}); }), "op0", {"number of dimensions"});
  ExpectMessage(FailureOf([&] { RunLike(x, Tensor({6, 7}), {{"lhs_axes", "(0,)"}, {"rhs_axes", "(0,)"}}); }), "op0",
                {"lhs axis 0", "only size-1 axes"});
}
