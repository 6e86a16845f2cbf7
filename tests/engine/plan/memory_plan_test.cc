#include "plan/memory_plan.h"

#include <catch2/catch.hpp>

using namespace qv;

namespace {

bool Overlap(size_t a, size_t a_bytes, size_t b, size_t b_bytes) { return a < b + b_bytes && b < a + a_bytes; }

}  // namespace

TEST_CASE("buffers alive at the same time never overlap", "[cachedop][memory]") {
  // A chain with a long-lived skip connection, like a residual block.
  std::vector<BufferLifetime> buffers = {
      {1000, 0, 3}, {500, 1, 2}, {500, 2, 3}, {1000, 3, 4}, {64, 4, 5}, {2000, 0, 0},
  };
  const MemoryPlan plan = PlanMemory(buffers);
  for (size_t i = 0; i < buffers.size(); ++i) {
    REQUIRE(plan.offsets[i] % 64 == 0);
    REQUIRE(plan.offsets[i] + buffers[i].bytes <= plan.total_bytes);
    for (size_t j = i + 1; j < buffers.size(); ++j) {
      const bool live_together = buffers[i].first_step <= buffers[j].last_step &&
                                 buffers[j].first_step <= buffers[i].last_step;
      if (live_together) REQUIRE_FALSE(Overlap(plan.offsets[i], buffers[i].bytes, plan.offsets[j], buffers[j].bytes));
    }
  }
}

TEST_CASE("dead buffers are reused", "[cachedop][memory]") {
  // A straight chain: each buffer dies as the next is written, so two slots suffice.
  std::vector<BufferLifetime> chain;
  for (int s = 0; s < 50; ++s) chain.push_back({4096, s, s + 1});
  const MemoryPlan plan = PlanMemory(chain);
  REQUIRE(plan.total_bytes <= 2 * 4096);
}
