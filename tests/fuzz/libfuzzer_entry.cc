// libFuzzer's entry point for one target, chosen at build time (QUIVER_FUZZ_TARGET, see CMakeLists.txt).
// A broken invariant is reported like a crash, so that libFuzzer saves the input.
#include <cstdio>
#include <cstdlib>

#include "fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string problem = quiver_fuzz::QUIVER_FUZZ_TARGET(data, size);
  if (!problem.empty()) {
    std::fprintf(stderr, "fuzz invariant broken: %s\n", problem.c_str());
    std::abort();
  }
  return 0;
}
