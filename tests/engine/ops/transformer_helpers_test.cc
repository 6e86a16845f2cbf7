// The sequence helpers of transformer graphs against index-by-index references: SequenceMask,
// softmax with lengths, _contrib_arange_like and Cast.
#include <cmath>

#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

Tensor RefSequenceMask(const Tensor& x, const std::vector<float>& lengths, int axis, float value) {
  Tensor y = x;
  const int64_t seq = x.shape[axis], batch = x.shape[1 - axis];
  const int64_t rest = x.size() / (seq * batch);
  for (int64_t s = 0; s < seq; ++s)
    for (int64_t b = 0; b < batch; ++b) {
      // MXNet truncates the length towards zero; a negative one masks everything.
      if (static_cast<double>(s) < std::trunc(lengths[b])) continue;
      const int64_t outer = axis == 0 ? s * batch + b : b * seq + s;
      for (int64_t r = 0; r < rest; ++r) y.data[outer * rest + r] = value;
    }
  return y;
}

Tensor RunSequenceMask(const Tensor& x, const Tensor& lengths, const AttrMap& attrs) {
  GraphBuilder g;
  g.Output(g.Op("SequenceMask", "mask", attrs, {g.Variable("data"), g.Variable("len")}));
  return Run(g, {x, lengths}).at(0);
}

// softmax over the last axis of (rows, n), the first trunc(length) entries of each row only.
Tensor RefSoftmaxLength(const Tensor& x, const std::vector<float>& lengths) {
  const int64_t n = x.shape.back(), rows = x.size() / n;
  Tensor y(x.shape);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t len = std::min<int64_t>(n, std::max<int64_t>(0, static_cast<int64_t>(lengths[r])));
    double max = -INFINITY, sum = 0;
    for (int64_t a = 0; a < len; ++a) max = std::max<double>(max, x.data[r * n + a]);
    for (int64_t a = 0; a < len; ++a) sum += std::exp(x.data[r * n + a] - max);
    for (int64_t a = 0; a < len; ++a) y.data[r * n + a] = static_cast<float>(std::exp(x.data[r * n + a] - max) / sum);
  }
  return y;
}

}  // namespace

TEST_CASE("SequenceMask sets positions past each length to value, on axis 0 and 1", "[ops][sequence]") {
  const std::vector<float> lengths = {3.f, 0.f, 5.7f, -1.f};
  for (int axis : {0, 1}) {
    const Tensor x = RandomTensor(axis == 0 ? Shape{5, 4, 3} : Shape{4, 5, 3}, 730);
    const AttrMap attrs = {{"use_sequence_length", "True"}, {"axis", std::to_string(axis)}, {"value", "-7.5"}};
    ExpectClose(RunSequenceMask(x, Tensor({4}, lengths), attrs), RefSequenceMask(x, lengths, axis, -7.5f),
                "axis " + std::to_string(axis), 0.0);
  }
  // Without use_sequence_length it is the identity.
  const Tensor x = RandomTensor({3, 2}, 731);
  ExpectClose(RunUnary("SequenceMask", {}, x), x, "no lengths", 0.0);
  ExpectMessage(FailureOf([] {
                  RunSequenceMask(RandomTensor({5, 4, 3}, 1), RandomTensor({5}, 2), {{"use_sequence_length", "True"}});
                }),
                "mask", {"sequence_length", "(4,)"});
  ExpectMessage(FailureOf([] {
                  RunSequenceMask(RandomTensor({5, 4, 3}, 1), RandomTensor({4}, 2),
                                  {{"use_sequence_length", "True"}, {"axis", "2"}});
                }),
                "mask", {"axis must be 0 or 1"});
}

TEST_CASE("softmax with use_length normalises each lane's first length entries and zeroes the rest",
          "[ops][sequence][softmax]") {
  const Tensor x = RandomTensor({2, 3, 6}, 732);
  const std::vector<float> lengths = {6.f, 1.f, 3.9f, 0.f, 9.f, 2.f};
  GraphBuilder g;
  g.Output(g.Op("softmax", "sm", {{"axis", "-1"}, {"use_length", "True"}}, {g.Variable("data"), g.Variable("len")}));
  ExpectClose(Run(g, {x, Tensor({2, 3}, lengths)}).at(0), RefSoftmaxLength(x, lengths), "last axis");
  // Lanes of whole vectors and a remainder, lengths below, at and past a vector's 16.
  const Tensor wide = RandomTensor({2, 3, 37}, 734);
  const std::vector<float> wide_lengths = {37.f, 1.f, 20.5f, 0.f, 50.f, 16.f};
  ExpectClose(Run(g, {wide, Tensor({2, 3}, wide_lengths)}).at(0), RefSoftmaxLength(wide, wide_lengths),
              "last axis of 37");
  // The lengths have the data's shape without the axis.
  ExpectMessage(FailureOf([&] { Run(g, {x, Tensor({6}, lengths)}); }), "sm", {"length", "(2, 3)"});
  // Another axis: the lengths of (2, 6) data along axis 0 index the columns.
  const Tensor t = RandomTensor({6, 2}, 733);
  GraphBuilder g0;
  g0.Output(g0.Op("softmax", "sm", {{"axis", "0"}, {"use_length", "True"}}, {g0.Variable("data"), g0.Variable("len")}));
  Tensor tt({2, 6});
  for (int64_t i = 0; i < 6; ++i)
    for (int64_t j = 0; j < 2; ++j) tt.data[j * 6 + i] = t.data[i * 2 + j];
  const Tensor want_t = RefSoftmaxLength(tt, {4.f, 2.f});
  Tensor want({6, 2});
  for (int64_t i = 0; i < 6; ++i)
    for (int64_t j = 0; j < 2; ++j) want.data[i * 2 + j] = want_t.data[j * 6 + i];
  ExpectClose(Run(g0, {t, Tensor({2}, {4.f, 2.f})}).at(0), want, "axis 0");
}

TEST_CASE("_contrib_arange_like counts over the input's elements or one axis", "[ops][sequence]") {
  const Tensor x = RandomTensor({2, 3}, 734);
  ExpectClose(RunUnary("_contrib_arange_like", {}, x), Tensor({2, 3}, {0, 1, 2, 3, 4, 5}), "whole input", 0.0);
  ExpectClose(RunUnary("_contrib_arange_like", {{"axis", "-1"}, {"start", "1.5"}, {"step", "2"}}, x),
              Tensor({3}, {1.5f, 3.5f, 5.5f}), "axis -1", 0.0);
  // repeat counts within the same number of elements.
  ExpectClose(RunUnary("_contrib_arange_like", {{"repeat", "2"}}, x), Tensor({2, 3}, {0, 0, 1, 1, 2, 2}), "repeat",
              0.0);
  ExpectMessage(FailureOf([&] { RunUnary("_contrib_arange_like", {{"axis", "2"}}, x); }), "op0", {"axis 2"});
}

TEST_CASE("Cast keeps float32 and truncates towards zero for integer types", "[ops][sequence]") {
  const Tensor x({5}, {-2.7f, -0.5f, 0.f, 1.99f, 7.f});
  ExpectClose(RunUnary("Cast", {{"dtype", "float32"}}, x), x, "float32", 0.0);
  for (const char* dtype : {"int32", "int64"})
    ExpectClose(RunUnary("Cast", {{"dtype", dtype}}, x), Tensor({5}, {-2.f, 0.f, 0.f, 1.f, 7.f}), dtype, 0.0);
  ExpectMessage(FailureOf([&] { RunUnary("Cast", {{"dtype", "uint8"}}, x); }), "op0", {"uint8", "not supported"});
}
