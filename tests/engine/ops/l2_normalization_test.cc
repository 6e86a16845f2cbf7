// L2Normalization's three modes against a reference that sums squares index by index.
#include <cmath>

#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

// Normalises x over the positions that share key(i) (the other axes of the mode).
template <typename Key>
Tensor RefL2Norm(const Tensor& x, float eps, Key key) {
  std::map<int64_t, double> sums;
  for (int64_t i = 0; i < x.size(); ++i) sums[key(i)] += double(x.data[i]) * x.data[i];
  Tensor y(x.shape);
  for (int64_t i = 0; i < x.size(); ++i) y.data[i] = static_cast<float>(x.data[i] / std::sqrt(sums[key(i)] + eps));
  return y;
}

}  // namespace

TEST_CASE("L2Normalization: instance, channel and spatial modes", "[ops][l2norm]") {
  const Tensor x = RandomTensor({2, 5, 3, 4}, 800);
  const int64_t c = 5, hw = 12;
  ExpectClose(RunUnary("L2Normalization", {}, x), RefL2Norm(x, 1e-10f, [&](int64_t i) { return i / (c * hw); }),
              "instance (default)");
  ExpectClose(RunUnary("L2Normalization", {{"mode", "channel"}, {"eps", "0.5"}}, x),
              RefL2Norm(x, 0.5f, [&](int64_t i) { return (i / (c * hw)) * hw + i % hw; }), "channel");
  ExpectClose(RunUnary("L2Normalization", {{"mode", "spatial"}}, x), RefL2Norm(x, 1e-10f, [&](int64_t i) { return i / hw; }),
              "spatial");
  ExpectMessage(FailureOf([&] { RunUnary("L2Normalization", {{"mode", "pixel"}}, x); }), "op0", {"pixel"});
  ExpectMessage(FailureOf([&] { RunUnary("L2Normalization", {}, RandomTensor({7}, 801)); }), "op0", {"2 dimensions"});
}
