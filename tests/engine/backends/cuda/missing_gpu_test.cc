// On a machine without a usable GPU, the CUDA build refuses gpu(N) arrays and ops with the CUDA
// runtime's reason, and every CPU path still works.
#include <catch2/catch.hpp>

#include <cuda_runtime_api.h>

#include <string>

#include "quiver/c_api.h"

namespace {

bool MachineHasGpu() {
  int count = 0;
  const bool ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  cudaGetLastError();
  return ok;
}

TEST_CASE("Without a GPU, gpu(0) arrays are refused with the CUDA runtime's reason", "[cuda][no_gpu]") {
  if (MachineHasGpu()) {
    WARN("not run: this machine has a GPU (the GPU suite covers it)");
    return;
  }
  const int64_t shape[1] = {4};
  QvNDArrayHandle array = nullptr;
  CHECK(QvNDArrayCreate(shape, 1, QV_GPU, 0, QV_FLOAT32, &array) == QV_ERR_DEVICE);
  const std::string message = QvGetLastError();
  CHECK_THAT(message, Catch::Contains("gpu(0)") && Catch::Contains("no usable CUDA device") &&
                          Catch::Contains("cudaError"));
  CHECK(array == nullptr);

  // The CPU is unaffected.
  REQUIRE(QvNDArrayCreate(shape, 1, QV_CPU, 0, QV_FLOAT32, &array) == QV_OK);
  const float values[4] = {1, 2, 3, 4};
  float back[4] = {};
  CHECK(QvNDArraySyncCopyFromCPU(array, values, sizeof values) == QV_OK);
  CHECK(QvNDArraySyncCopyToCPU(array, back, sizeof back) == QV_OK);
  CHECK(back[3] == 4.0f);
  CHECK(QvNDArrayFree(array) == QV_OK);
}

}  // namespace
