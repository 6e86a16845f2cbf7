// SoftmaxActivation (MXNet's older softmax layer) in both modes, against a reference that normalises
// each group of positions index by index.
#include <cmath>

#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

// Softmax over the positions that share key(i).
template <typename Key>
Tensor RefSoftmax(const Tensor& x, Key key) {
  std::map<int64_t, double> max, sum;
  for (int64_t i = 0; i < x.size(); ++i) {
    auto it = max.find(key(i));
    if (it == max.end() || x.data[i] > it->second) max[key(i)] = x.data[i];
  }
  for (int64_t i = 0; i < x.size(); ++i) sum[key(i)] += std::exp(double(x.data[i]) - max[key(i)]);
  Tensor y(x.shape);
  for (int64_t i = 0; i < x.size(); ++i)
    y.data[i] = static_cast<float>(std::exp(double(x.data[i]) - max[key(i)]) / sum[key(i)]);
  return y;
}

}  // namespace

TEST_CASE("SoftmaxActivation: instance and channel modes", "[ops][softmax]") {
  const Tensor x = RandomTensor({2, 5, 3, 4}, 900);
  const int64_t c = 5, hw = 12;
  ExpectClose(RunUnary("SoftmaxActivation", {}, x), RefSoftmax(x, [&](int64_t i) { return i / (c * hw); }),
              "instance (default)");
  ExpectClose(RunUnary("SoftmaxActivation", {{"mode", "instance"}}, RandomTensor({3, 7}, 901)),
              RefSoftmax(RandomTensor({3, 7}, 901), [](int64_t i) { return i / 7; }), "instance, 2-D");
  ExpectClose(RunUnary("SoftmaxActivation", {{"mode", "channel"}}, x),
              RefSoftmax(x, [&](int64_t i) { return (i / (c * hw)) * hw + i % hw; }), "channel");
  ExpectMessage(FailureOf([&] { RunUnary("SoftmaxActivation", {{"mode", "pixel"}}, x); }), "op0", {"pixel"});
  ExpectMessage(FailureOf([&] { RunUnary("SoftmaxActivation", {{"mode", "channel"}}, RandomTensor({4, 6}, 902)); }),
                "op0", {"3 dimensions"});
}
