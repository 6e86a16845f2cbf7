// Test-only fault injection: makes one chosen event fail, so that tests can show that a failure stays
// in the one invocation it hits. Nothing in the C API or the environment arms it: only code linked
// against the engine's internals (the test suites) can, and these symbols are not exported from
// libquiver.so. Disarmed, a site costs one relaxed atomic load.
#pragma once

#include <cstdint>

#include "common/error.h"

namespace qv::fault {

enum class Site {
  kAllocation,  // Storage::Allocate: array storage and workspaces
  kKernel,      // Plan::Run, before each kernel executes
};

// The `countdown`-th hit of `site` from now (1: the next one) throws Error(status, "injected fault ...");
// every other hit passes. Re-arming replaces the previous setting.
void Arm(Site site, uint64_t countdown, Status status);
void Disarm();
// Hits of `site` since it was last armed (for tests that aim a fault at a chosen hit).
uint64_t Hits(Site site);

// Called at each site.
void Hit(Site site);

}  // namespace qv::fault
