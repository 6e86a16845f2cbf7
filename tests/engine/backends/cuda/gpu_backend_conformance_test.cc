// The CUDA backend against the conformance checks every backend must pass, on the first GPU.
#include <catch2/catch.hpp>

#include "engine/backends/backend_conformance.h"

TEST_CASE("the CUDA backend passes the backend conformance checks", "[backends][cuda]") {
  const qv::Device gpu{qv::DeviceType::kGpu, 0};
  quiver_test::CheckBackendConformance(qv::FindBackend(gpu), gpu);
}
