// Flag max_plans: an op fed many input shapes keeps a bounded number of plans, and so bounded memory.
#include <catch2/catch.hpp>

#include "quiver/c_api.h"
#include "support/tiny_model.h"

using namespace quiver_test;

namespace {

// Bytes in use after running batch sizes first..last once each through an op with these flags.
uint64_t BytesAfterShapes(int first, int last, const Flags& flags) {
  const QvCachedOpHandle op = CreateTinyModel(/*thread_safe=*/1, flags);
  for (int n = first; n <= last; ++n) {
    QvNDArrayHandle x = MakeRandomArray({n, 3, 16, 16}, static_cast<uint32_t>(n));
    RunSync(op, x);
    QvNDArrayFree(x);
  }
  const uint64_t bytes = SettledMemoryStats().first;
  FreeTinyModel(op);
  return bytes;
}

}  // namespace

TEST_CASE("max_plans bounds the memory of an op fed many input shapes", "[capi]") {
  // Each plan keeps its workspaces. With 4 plans kept, batch sizes 1..40 hold what the last four
  // alone do; with every plan kept (max_plans above the shapes), what all 40 need.
  const uint64_t last_four = BytesAfterShapes(37, 40, {{"max_plans", "4"}});
  const uint64_t bounded = BytesAfterShapes(1, 40, {{"max_plans", "4"}});
  const uint64_t unbounded = BytesAfterShapes(1, 40, {{"max_plans", "1000"}});
  INFO("the last four shapes: " << last_four << " bytes; all 40 with 4 plans kept: " << bounded
                                << "; with every plan kept: " << unbounded);
  CHECK(bounded <= last_four + last_four / 10);  // the same four plans (allowing for packed weights)
  CHECK(unbounded > bounded * 3);
}
