#include "tensor/memory_limit.h"

#include <catch2/catch.hpp>
#include <cstdint>

using qv::ParseMemoryLimit;

TEST_CASE("QUIVER_MEMORY_LIMIT: bytes, K/M/G, or a share of what is available", "[tensor]") {
  constexpr size_t kAvailable = 8000;
  CHECK(ParseMemoryLimit(nullptr, kAvailable) == SIZE_MAX);
  CHECK(ParseMemoryLimit("1234", kAvailable) == 1234);
  CHECK(ParseMemoryLimit("64M", kAvailable) == (size_t{64} << 20));
  CHECK(ParseMemoryLimit("2g", kAvailable) == (size_t{2} << 30));
  CHECK(ParseMemoryLimit("75%", kAvailable) == 6000);
  CHECK(ParseMemoryLimit("100%", kAvailable) == kAvailable);
  // Unreadable: no limit, as an unset variable.
  for (const char* bad : {"", "0", "0%", "101%", "75%x", "12T", "lots", "99999999999999999999G"}) {
    INFO(bad);
    CHECK(ParseMemoryLimit(bad, kAvailable) == SIZE_MAX);
  }
  CHECK(ParseMemoryLimit("50%", SIZE_MAX) == SIZE_MAX);  // a share of nothing known is no limit
}
