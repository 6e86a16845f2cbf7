// QvNDArrayGetData: the address bindings read results from without copying.
#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "quiver/c_api.h"
#include "support/tiny_model.h"

using namespace quiver_test;

TEST_CASE("QvNDArrayGetData returns a wrapped buffer's own address", "[capi]") {
  float buffer[6] = {1, 2, 3, 4, 5, 6};
  const int64_t shape[] = {2, 3};
  QvNDArrayHandle array = nullptr;
  REQUIRE(QvNDArrayCreateFromBuffer(buffer, shape, 2, QV_FLOAT32, nullptr, nullptr, &array) == QV_OK);
  void* data = nullptr;
  REQUIRE(QvNDArrayGetData(array, &data) == QV_OK);
  CHECK(data == buffer);
  QvNDArrayFree(array);
}

TEST_CASE("QvNDArrayGetData of a readable output holds what SyncCopyToCPU copies", "[capi]") {
  QvCachedOpHandle op = CreateTinyModel(1);
  QvNDArrayHandle input = MakeRandomArray({2, 3, 16, 16}, 11);
  uint32_t n = 0;
  QvNDArrayHandle* outputs = nullptr;
  REQUIRE(QvInvokeAsync(op, 1, &input, &n, &outputs) == QV_OK);
  REQUIRE(n == 1);
  QvNDArrayHandle output = outputs[0];
  REQUIRE(QvNDArrayWaitToRead(output) == QV_OK);

  uint32_t ndim = 0;
  const int64_t* shape = nullptr;
  REQUIRE(QvNDArrayGetShape(output, &ndim, &shape) == QV_OK);
  size_t count = 1;
  for (uint32_t i = 0; i < ndim; ++i) count *= static_cast<size_t>(shape[i]);
  std::vector<float> copied(count);
  REQUIRE(QvNDArraySyncCopyToCPU(output, copied.data(), count * sizeof(float)) == QV_OK);
  void* data = nullptr;
  REQUIRE(QvNDArrayGetData(output, &data) == QV_OK);
  CHECK(std::memcmp(data, copied.data(), count * sizeof(float)) == 0);

  QvNDArrayFree(output);
  QvNDArrayFree(input);
  QvFreeCachedOp(op);
}
