// LayerNorm against a double-precision reference: (x - mean) / sqrt(var + eps) * gamma + beta per lane.
#include <cmath>

#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

Tensor RefLayerNorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, int64_t axis, double eps) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.shape[d];
  for (size_t d = axis + 1; d < x.shape.size(); ++d) inner *= x.shape[d];
  const int64_t n = x.shape[axis];
  Tensor y(x.shape);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t a) { return (o * n + a) * inner + i; };
      double mean = 0, var = 0;
      for (int64_t a = 0; a < n; ++a) mean += x.data[at(a)];
      mean /= n;
      for (int64_t a = 0; a < n; ++a) var += (x.data[at(a)] - mean) * (x.data[at(a)] - mean);
      var /= n;
      for (int64_t a = 0; a < n; ++a)
        y.data[at(a)] = static_cast<float>((x.data[at(a)] - mean) / std::sqrt(var + eps) * gamma.data[a] + beta.data[a]);
    }
  return y;
}

Tensor RunLayerNorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, const AttrMap& attrs) {
  GraphBuilder g;
  g.Output(g.Op("LayerNorm", "ln", attrs, {g.Variable("data"), g.Variable("ln_gamma"), g.Variable("ln_beta")}));
  return Run(g, {x}, {{"ln_gamma", gamma}, {"ln_beta", beta}}).at(0);
}

}  // namespace

TEST_CASE("LayerNorm normalises along the last axis, a middle axis and the first", "[ops][layer_norm]") {
  const Tensor x = RandomTensor({3, 5, 8}, 700, -2.f, 4.f);
  for (int64_t axis : {2, 1, 0}) {
    const Tensor gamma = RandomTensor({x.shape[axis]}, 701), beta = RandomTensor({x.shape[axis]}, 702);
    const AttrMap attrs = {{"axis", std::to_string(axis)}, {"eps", "1e-12"}};
    ExpectClose(RunLayerNorm(x, gamma, beta, attrs), RefLayerNorm(x, gamma, beta, axis, 1e-12),
                "axis " + std::to_string(axis));
  }
  // The defaults: axis -1, eps 1e-5 (visible on lanes of variance ~1e-4: it moves the outputs ~4%).
  const Tensor flat = RandomTensor({4, 6}, 703, -0.02f, 0.02f);
  const Tensor gamma = RandomTensor({6}, 704), beta = RandomTensor({6}, 705);
  ExpectClose(RunLayerNorm(flat, gamma, beta, {}), RefLayerNorm(flat, gamma, beta, 1, 1e-5), "defaults");
}

TEST_CASE("LayerNorm refuses bad parameters and output_mean_var", "[ops][layer_norm]") {
  const Tensor x = RandomTensor({2, 4}, 706);
  ExpectMessage(FailureOf([&] { RunLayerNorm(x, RandomTensor({3}, 1), RandomTensor({4}, 2), {}); }), "ln",
                {"gamma", "(3,)"});
  ExpectMessage(FailureOf([&] { RunLayerNorm(x, RandomTensor({4}, 1), RandomTensor({4}, 2), {{"axis", "2"}}); }), "ln",
                {"axis 2"});
  ExpectMessage(FailureOf([&] {
                  RunLayerNorm(x, RandomTensor({4}, 1), RandomTensor({4}, 2), {{"output_mean_var", "True"}});
                }),
                "ln", {"output_mean_var"});
}
