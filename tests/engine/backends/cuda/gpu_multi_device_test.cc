// One model on two GPUs at once (the multi-GPU suite: needs gpu(0) and gpu(1), see gpu_main.cc). Each
// op keeps its parameters on its own device; both give the CPU's answer, and the same bits as each
// other, also when invoked at the same time.
#include <catch2/catch.hpp>

#include <cstring>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "quiver/c_api.h"
#include "support/single_op.h"

namespace {

using qv_ref::Tensor;
using qv_test::GraphBuilder;

// FullyConnected, ReLU, FullyConnected, softmax: parameters on the device and several kernels.
std::string SmallNetJson() {
  GraphBuilder g;
  const int fc1 = g.Op("FullyConnected", "fc1", {{"num_hidden", "32"}},
                       {g.Variable("data"), g.Variable("fc1_weight"), g.Variable("fc1_bias")});
  const int relu = g.Op("Activation", "relu1", {{"act_type", "relu"}}, {fc1});
  const int fc2 =
      g.Op("FullyConnected", "fc2", {{"num_hidden", "10"}}, {relu, g.Variable("fc2_weight"), g.Variable("fc2_bias")});
  g.Output(g.Op("softmax", "prob", {}, {fc2}));
  return g.ToJson();
}

bool SameBits(const Tensor& a, const Tensor& b) {
  return a.shape == b.shape && std::memcmp(a.data.data(), b.data.data(), a.data.size() * sizeof(float)) == 0;
}

TEST_CASE("One model on gpu(0) and gpu(1) gives the CPU's answer on each, also invoked at once", "[gpu][multi_gpu]") {
  std::mt19937 rng(17);
  const std::map<std::string, Tensor> params = {{"fc1_weight", qv_test::Random({32, 64}, &rng)},
                                                {"fc1_bias", qv_test::Random({32}, &rng)},
                                                {"fc2_weight", qv_test::Random({10, 32}, &rng)},
                                                {"fc2_bias", qv_test::Random({10}, &rng)}};
  const std::string json = SmallNetJson();
  const qv_test::CompiledGraph cpu(json, params);
  const qv_test::CompiledGraph gpu0(json, params, {{"device", "gpu(0)"}});
  const qv_test::CompiledGraph gpu1(json, params, {{"device", "gpu(1)"}});
  const Tensor x = qv_test::Random({8, 64}, &rng);
  const Tensor want = cpu.Run({x})[0];

  const Tensor on0 = gpu0.Run({x}, QV_GPU, 0)[0];
  const Tensor on1 = gpu1.Run({x}, QV_GPU, 1)[0];
  CHECK(qv_test::Compare(on0, want).ok());
  CHECK(SameBits(on0, on1));

  // Both devices busy at once: every result the same bits as the sequential ones.
  std::vector<Tensor> results(2 * 50);
  std::thread t0([&] {
    for (int i = 0; i < 50; ++i) results[i] = gpu0.Run({x}, QV_GPU, 0)[0];
  });
  std::thread t1([&] {
    for (int i = 0; i < 50; ++i) results[50 + i] = gpu1.Run({x}, QV_GPU, 1)[0];
  });
  t0.join();
  t1.join();
  for (const Tensor& r : results) CHECK(SameBits(r, on0));
}

}  // namespace
