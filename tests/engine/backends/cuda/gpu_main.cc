// The GPU suites' entry point: on a machine with fewer usable GPUs than the suite needs
// (QUIVER_MIN_GPUS, one unless the build says otherwise) it says so and exits 77, which CTest reports as
// "not run" (skipped), never as passed. Notices are on (QUIVER_VERBOSE, unless set otherwise), so the
// suite's output names every plan that could not be captured as a CUDA graph, and why.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>

#include "backends/cuda/runtime/cuda_error.h"

#ifndef QUIVER_MIN_GPUS
#define QUIVER_MIN_GPUS 1
#endif

int main(int argc, char* argv[]) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    std::printf("not run: no GPU (%s)\n",
                status != cudaSuccess ? qv::cuda::DescribeCudaError(status).c_str() : "0 CUDA devices");
    return 77;
  }
  if (count < QUIVER_MIN_GPUS) {
    std::printf("not run: needs %d GPUs, this machine has %d\n", QUIVER_MIN_GPUS, count);
    return 77;
  }
  setenv("QUIVER_VERBOSE", "1", 0);
  return Catch::Session().run(argc, argv);
}
