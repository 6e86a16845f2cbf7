// _contrib_AdaptiveAvgPooling2D against a reference that averages each cell in double, the cells
// bounded by floor(i H / oh) and ceil((i + 1) H / oh) as MXNet 1.9.1 sizes them.
#include <cmath>

#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

Tensor RefAdaptiveAvgPool(const Tensor& x, int64_t oh, int64_t ow) {
  const int64_t planes = x.shape[0] * x.shape[1], h = x.shape[2], w = x.shape[3];
  Tensor y({x.shape[0], x.shape[1], oh, ow});
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        const auto r0 = static_cast<int64_t>(std::floor(double(i) * h / oh));
        const auto r1 = static_cast<int64_t>(std::ceil(double(i + 1) * h / oh));
        const auto c0 = static_cast<int64_t>(std::floor(double(j) * w / ow));
        const auto c1 = static_cast<int64_t>(std::ceil(double(j + 1) * w / ow));
        double sum = 0;
        for (int64_t r = r0; r < r1; ++r)
          for (int64_t c = c0; c < c1; ++c) sum += x.data[(p * h + r) * w + c];
        y.data[(p * oh + i) * ow + j] = static_cast<float>(sum / double((r1 - r0) * (c1 - c0)));
      }
  return y;
}

}  // namespace

TEST_CASE("AdaptiveAvgPooling2D: square, pair and default sizes, uneven and overlapping cells",
          "[ops][adaptive_pool]") {
  struct Case {
    Shape x;
    std::string output_size;  // "" leaves the attribute out
    int64_t oh, ow;
  };
  const std::vector<Case> cases = {
      {{2, 3, 12, 12}, "3", 3, 3},         // uniform 4x4 cells
      {{1, 4, 28, 28}, "6", 6, 6},         // PSPNet's 6 on a 28 map: cells of 5 and 6 that overlap
      {{2, 2, 7, 10}, "(3, 4)", 3, 4},     // a pair, neither side divisible
      {{1, 3, 9, 5}, "[2,2]", 2, 2},
      {{1, 2, 5, 6}, "", 1, 1},            // absent: global
      {{1, 2, 5, 6}, "()", 1, 1},          // empty tuple: global, as MXNet
      {{1, 2, 5, 6}, "None", 1, 1},
      {{1, 2, 3, 4}, "(7, 9)", 7, 9},      // larger than the input: cells repeat input pixels
      {{1, 1, 1, 1}, "2", 2, 2},
  };
  for (const Case& c : cases) {
    const Tensor x = RandomTensor(c.x, 900 + static_cast<unsigned>(c.oh * 10 + c.ow));
    AttrMap attrs;
    if (!c.output_size.empty()) attrs["output_size"] = c.output_size;
    const std::string what = ShapeStr(c.x) + " output_size '" + c.output_size + "'";
    RunCase(what, [&] { ExpectClose(RunUnary("_contrib_AdaptiveAvgPooling2D", attrs, x), RefAdaptiveAvgPool(x, c.oh, c.ow), what); });
  }
}

TEST_CASE("AdaptiveAvgPooling2D: bad output sizes and inputs are refused naming the node", "[ops][adaptive_pool]") {
  const Tensor x = RandomTensor({1, 2, 6, 6}, 910);
  const std::string op = "_contrib_AdaptiveAvgPooling2D";
  ExpectMessage(FailureOf([&] { RunUnary(op, {{"output_size", "(2, 2, 2)"}}, x); }), "op0", {"output_size", "pair"});
  ExpectMessage(FailureOf([&] { RunUnary(op, {{"output_size", "0"}}, x); }), "op0", {"output_size", "positive"});
  ExpectMessage(FailureOf([&] { RunUnary(op, {{"output_size", "(2, -1)"}}, x); }), "op0", {"positive"});
  ExpectMessage(FailureOf([&] { RunUnary(op, {{"output_size", "two"}}, x); }), "op0", {"output_size", "two"});
  ExpectMessage(FailureOf([&] { RunUnary(op, {{"output_size", "2"}}, RandomTensor({2, 6, 6}, 911)); }), "op0",
                {"4-D", "(2, 6, 6)"});
}
