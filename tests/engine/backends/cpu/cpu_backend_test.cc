// The CPU backend against the conformance checks every backend must pass.
#include <catch2/catch.hpp>

#include "engine/backends/backend_conformance.h"

TEST_CASE("the CPU backend passes the backend conformance checks", "[backends][cpu]") {
  const qv::Device cpu{qv::DeviceType::kCpu, 0};
  quiver_test::CheckBackendConformance(qv::FindBackend(cpu), cpu);
}
