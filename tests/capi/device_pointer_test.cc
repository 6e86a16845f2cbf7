// QvNDArrayCreateFromDevicePointer and QvNDArrayGetDevicePointer on the CPU (the GPU's side runs on the
// emulated GPU, tests/engine/backends/emulated_gpu, and on a real one in the CUDA suites).
#include <atomic>
#include <catch2/catch.hpp>
#include <vector>

#include "support/failure_checks.h"
#include "support/scheduling_helpers.h"

using namespace quiver_test;

namespace {

void CountRelease(void* ctx) { static_cast<std::atomic<int>*>(ctx)->fetch_add(1); }

}  // namespace

TEST_CASE("a wrapped host pointer is read in place and released once, after its last reader", "[capi]") {
  QvCachedOpHandle op = CreateTinyModel(1);
  QvNDArrayHandle reference_input = MakeRandomArray({2, 3, 16, 16}, 31);
  std::vector<float> pixels = ReadFloats(reference_input);
  const std::vector<float> expected = RunSync(op, reference_input);
  std::atomic<int> released{0};
  const int64_t shape[] = {2, 3, 16, 16};
  QvNDArrayHandle wrapped = nullptr;
  REQUIRE(QvNDArrayCreateFromDevicePointer(pixels.data(), shape, 4, QV_FLOAT32, QV_CPU, 0, nullptr, CountRelease,
                                           &released, &wrapped) == QV_OK);
  void* data = nullptr;
  REQUIRE(QvNDArrayGetDevicePointer(wrapped, &data) == QV_OK);
  CHECK(data == pixels.data());
  void* host = nullptr;
  REQUIRE(QvNDArrayGetData(wrapped, &host) == QV_OK);
  CHECK(host == data);

  QvNDArrayHandle output = Submit(op, wrapped);
  QvNDArrayFree(wrapped);  // the invocation still reads it
  std::vector<float> got;
  REQUIRE(Collect(output, &got) == QV_OK);
  CHECK(SameBits(got, expected));
  REQUIRE(QvWaitAll() == QV_OK);
  CHECK(released == 1);
  QvNDArrayFree(reference_input);
  FreeTinyModel(op);
}

TEST_CASE("wrapping a device pointer refuses what it cannot honour, keeping the caller's memory", "[capi]") {
  float values[4] = {1, 2, 3, 4};
  const int64_t shape[] = {4};
  std::atomic<int> released{0};
  QvNDArrayHandle array = nullptr;
  int fake_stream = 0;
  EXPECT_QV_FAILURE(QvNDArrayCreateFromDevicePointer(values, shape, 1, QV_FLOAT32, QV_CPU, 0, &fake_stream,
                                                     CountRelease, &released, &array),
                    STATUSES(QV_ERR_INVALID_ARGUMENT), "stream");
  EXPECT_QV_FAILURE(QvNDArrayCreateFromDevicePointer(values, shape, 1, QV_FLOAT32, 7, 0, nullptr, CountRelease,
                                                     &released, &array),
                    STATUSES(QV_ERR_INVALID_ARGUMENT), "device type 7");
  EXPECT_QV_FAILURE(QvNDArrayCreateFromDevicePointer(nullptr, shape, 1, QV_FLOAT32, QV_CPU, 0, nullptr, CountRelease,
                                                     &released, &array),
                    STATUSES(QV_ERR_INVALID_ARGUMENT), "data");
  EXPECT_QV_FAILURE(QvNDArrayCreateFromDevicePointer(values, shape, 1, QV_FLOAT32, QV_GPU, 4096, nullptr,
                                                     CountRelease, &released, &array),
                    STATUSES(QV_ERR_DEVICE), "4096");
  void* data = nullptr;
  EXPECT_QV_FAILURE(QvNDArrayGetDevicePointer(nullptr, &data), STATUSES(QV_ERR_INVALID_ARGUMENT), "null");
  CHECK(array == nullptr);
  CHECK(released == 0);
}
