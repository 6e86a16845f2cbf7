#include "gpu_vs_cpu.h"

#include <catch2/catch.hpp>

#include <cstring>

namespace qv_test {

void ExpectGpuMatchesCpu(const GraphBuilder& g, const std::map<std::string, qv_ref::Tensor>& params,
                         const std::vector<qv_ref::Tensor>& inputs, Match match) {
  const std::string json = g.ToJson();
  const CompiledGraph cpu(json, params);
  const CompiledGraph gpu(json, params, {{"device", "gpu(0)"}});
  const std::vector<qv_ref::Tensor> want = cpu.Run(inputs);
  const std::vector<qv_ref::Tensor> got = gpu.Run(inputs, QV_GPU);
  REQUIRE(got.size() == want.size());
  for (size_t k = 0; k < want.size(); ++k) {
    INFO("output " << k);
    REQUIRE(got[k].shape == want[k].shape);
    if (match == Match::kExact) {
      int64_t first = -1;
      for (int64_t i = 0; i < want[k].size() && first < 0; ++i)
        if (std::memcmp(&got[k].data[i], &want[k].data[i], sizeof(float)) != 0) first = i;
      INFO("first differing element " << first << ": gpu " << (first < 0 ? 0.f : got[k].data[first]) << ", cpu "
                                      << (first < 0 ? 0.f : want[k].data[first]));
      CHECK(first == -1);
    } else {
      const Comparison c = Compare(got[k], want[k]);
      INFO(c.Describe(got[k], want[k]));
      CHECK(c.ok());
    }
  }
}

}  // namespace qv_test
