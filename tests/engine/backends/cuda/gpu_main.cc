// The GPU suite's entry point: on a machine without a usable GPU it says so and exits 77, which CTest
// reports as "not run" (skipped), never as passed.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cuda_runtime_api.h>

#include <cstdio>

int main(int argc, char* argv[]) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    std::printf("not run: no GPU (%s)\n", status != cudaSuccess ? cudaGetErrorString(status) : "0 CUDA devices");
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
