// GroupNorm against a double-precision reference: each (sample, group) block of channels normalised as
// (x - mean) / sqrt(var + eps), then scaled by gamma[group] and shifted by beta[group] (one value per
// group, as in MXNet 1.9.1).
#include <cmath>

#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

Tensor RefGroupNorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, int64_t groups, double eps) {
  const int64_t n = x.shape[0], c = x.shape[1];
  int64_t spatial = 1;
  for (size_t d = 2; d < x.shape.size(); ++d) spatial *= x.shape[d];
  const int64_t size = c / groups * spatial;
  Tensor y(x.shape);
  for (int64_t b = 0; b < n * groups; ++b) {
    const float* in = x.data.data() + b * size;
    double mean = 0, var = 0;
    for (int64_t i = 0; i < size; ++i) mean += in[i];
    mean /= size;
    for (int64_t i = 0; i < size; ++i) var += (in[i] - mean) * (in[i] - mean);
    var /= size;
    for (int64_t i = 0; i < size; ++i)
      y.data[b * size + i] =
          static_cast<float>((in[i] - mean) / std::sqrt(var + eps) * gamma.data[b % groups] + beta.data[b % groups]);
  }
  return y;
}

Tensor RunGroupNorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, const AttrMap& attrs) {
  GraphBuilder g;
  g.Output(g.Op("GroupNorm", "gn", attrs, {g.Variable("data"), g.Variable("gn_gamma"), g.Variable("gn_beta")}));
  return Run(g, {x}, {{"gn_gamma", gamma}, {"gn_beta", beta}}).at(0);
}

}  // namespace

TEST_CASE("GroupNorm normalises each group of channels with per-group gamma and beta", "[ops][group_norm]") {
  struct Case {
    Shape shape;
    int64_t groups;
  };
  for (const Case& c : {Case{{2, 8, 5, 3}, 4}, Case{{1, 6, 7}, 1}, Case{{3, 6, 2, 3, 2}, 6}, Case{{2, 4, 3, 3}, 2}}) {
    const Tensor x = RandomTensor(c.shape, 710, -2.f, 4.f);
    const Tensor gamma = RandomTensor({c.groups}, 711), beta = RandomTensor({c.groups}, 712);
    const AttrMap attrs = {{"num_groups", std::to_string(c.groups)}, {"eps", "1e-3"}};
    ExpectClose(RunGroupNorm(x, gamma, beta, attrs), RefGroupNorm(x, gamma, beta, c.groups, 1e-3),
                "groups " + std::to_string(c.groups));
  }
  // The defaults: one group, eps 1e-5 (visible on groups of variance ~1e-4: it moves the outputs ~4%).
  const Tensor flat = RandomTensor({2, 3, 4}, 713, -0.02f, 0.02f);
  const Tensor gamma = RandomTensor({1}, 714), beta = RandomTensor({1}, 715);
  ExpectClose(RunGroupNorm(flat, gamma, beta, {}), RefGroupNorm(flat, gamma, beta, 1, 1e-5), "defaults");
}

TEST_CASE("GroupNorm refuses bad groups, parameter shapes and output_mean_var", "[ops][group_norm]") {
  const Tensor x = RandomTensor({2, 6, 3}, 716);
  const Tensor two = RandomTensor({2}, 1);
  ExpectMessage(FailureOf([&] { RunGroupNorm(x, RandomTensor({4}, 1), RandomTensor({4}, 2), {{"num_groups", "4"}}); }),
                "gn", {"6 channels", "4 groups"});
  ExpectMessage(FailureOf([&] { RunGroupNorm(x, RandomTensor({6}, 1), two, {{"num_groups", "2"}}); }), "gn",
                {"gamma", "(6,)"});
  ExpectMessage(FailureOf([&] { RunGroupNorm(RandomTensor({2, 6}, 3), two, two, {{"num_groups", "2"}}); }), "gn",
                {"3 dimensions"});
  ExpectMessage(FailureOf([&] {
                  RunGroupNorm(x, two, two, {{"num_groups", "2"}, {"output_mean_var", "True"}});
                }),
                "gn", {"output_mean_var"});
}
