// SwapAxis against an index-by-index reference.
#include <utility>

#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

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
