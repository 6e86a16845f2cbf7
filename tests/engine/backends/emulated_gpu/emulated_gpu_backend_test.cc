// The emulated GPU (engine/backends/emulated_gpu): gpu(0) in host memory with the CPU's kernels, where
// QUIVER_EMULATED_GPU=1. Tagged [.emulated_gpu]: the variable is read once per process, so CTest runs
// these alone with it set (tests/CMakeLists.txt).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <catch2/catch.hpp>
#include <thread>

#include "backends/backend.h"
#include "engine/backends/backend_conformance.h"
#include "support/failure_checks.h"
#include "support/scheduling_helpers.h"

using namespace quiver_test;

namespace {

const qv::Device kGpu{qv::DeviceType::kGpu, 0};

int DeviceTypeOf(QvNDArrayHandle array) {
  int type = 0, id = 0;
  REQUIRE(QvNDArrayGetDevice(array, &type, &id) == QV_OK);
  return type;
}

// A copy of `values` in a new gpu(0) array of `shape`.
QvNDArrayHandle OnGpu(const std::vector<int64_t>& shape, const std::vector<float>& values) {
  QvNDArrayHandle array = nullptr;
  REQUIRE(QvNDArrayCreate(shape.data(), static_cast<uint32_t>(shape.size()), QV_GPU, 0, QV_FLOAT32, &array) == QV_OK);
  REQUIRE(QvNDArraySyncCopyFromCPU(array, values.data(), values.size() * sizeof(float)) == QV_OK);
  return array;
}

}  // namespace

TEST_CASE("the emulated GPU passes the backend conformance checks", "[.emulated_gpu]") {
  const qv::Backend& backend = qv::FindBackend(kGpu);
  CheckBackendConformance(backend, kGpu);
}

TEST_CASE("a gpu(0) model computes the CPU's bits into arrays only a copy can read", "[.emulated_gpu]") {
  QvCachedOpHandle cpu = CreateTinyModel(1);
  QvCachedOpHandle gpu = CreateTinyModel(1, {{"device", "gpu(0)"}});
  const std::vector<int64_t> shape{3, 3, 12, 12};
  QvNDArrayHandle host_input = MakeRandomArray(shape, 7);
  const std::vector<float> expected = RunSync(cpu, host_input);

  SECTION("from a host input") {
    QvNDArrayHandle output = Submit(gpu, host_input);
    REQUIRE(DeviceTypeOf(output) == QV_GPU);
    void* data = nullptr;
    EXPECT_QV_FAILURE(QvNDArrayGetData(output, &data), STATUSES(QV_ERR_DEVICE), "CPU arrays only", "gpu(0)");
    std::vector<float> got;
    REQUIRE(Collect(output, &got) == QV_OK);
    CHECK(SameBits(got, expected));
  }
  SECTION("from a gpu(0) input, many times from several threads") {
    QvNDArrayHandle device_input = OnGpu(shape, ReadFloats(host_input));
    std::vector<std::thread> threads;
    std::atomic<int> wrong{0};
    for (int t = 0; t < 3; ++t) {
      threads.emplace_back([&] {
        for (int i = 0; i < 50; ++i) {
          std::vector<float> got;
          if (Collect(Submit(gpu, device_input), &got) != QV_OK || !SameBits(got, expected)) ++wrong;
        }
      });
    }
    for (auto& t : threads) t.join();
    CHECK(wrong == 0);
    QvNDArrayFree(device_input);
  }
  SECTION("batched with other requests") {
    QvCachedOpHandle batched = CreateTinyModel(1, {{"device", "gpu(0)"}, {"max_batch_size", "8"},
                                                   {"batch_timeout_us", "20000"}});
    std::vector<QvNDArrayHandle> rows, outputs;
    std::vector<std::vector<float>> want;
    for (uint32_t i = 0; i < 4; ++i) {
      rows.push_back(MakeRandomArray({1, 3, 12, 12}, 100 + i));
      want.push_back(RunSync(cpu, rows.back()));
    }
    for (QvNDArrayHandle row : rows) outputs.push_back(Submit(batched, row));
    for (size_t i = 0; i < outputs.size(); ++i) {
      std::vector<float> got;
      REQUIRE(Collect(outputs[i], &got) == QV_OK);
      CHECK(MaxAbsDiff(got, want[i]) <= 1e-5f * MaxAbs(want[i]));
    }
    FreeArrays(rows);
    FreeTinyModel(batched);
  }
  QvNDArrayFree(host_input);
  FreeTinyModel(gpu);
  FreeTinyModel(cpu);
}

TEST_CASE("the emulated GPU is gpu(0) alone", "[.emulated_gpu]") {
  const int64_t shape[] = {4};
  QvNDArrayHandle array = nullptr;
  EXPECT_QV_FAILURE(QvNDArrayCreate(shape, 1, QV_GPU, 1, QV_FLOAT32, &array), STATUSES(QV_ERR_DEVICE), "gpu(1)",
                    "QUIVER_EMULATED_GPU");
  QvCachedOpHandle op = nullptr;
  TinyParams params = MakeTinyParams();
  EXPECT_QV_FAILURE(TryCreateCachedOp(TinyModelJson(), params, {{"device", "gpu(1)"}}, 1, &op),
                    STATUSES(QV_ERR_DEVICE), "gpu(1)");
}

TEST_CASE("a wrapped gpu(0) pointer feeds a gpu(0) model in place, after the producer's stream",
          "[.emulated_gpu]") {
  QvCachedOpHandle cpu = CreateTinyModel(1);
  QvCachedOpHandle gpu = CreateTinyModel(1, {{"device", "gpu(0)"}});
  QvNDArrayHandle host_input = MakeRandomArray({2, 3, 16, 16}, 41);
  std::vector<float> pixels = ReadFloats(host_input);
  const std::vector<float> expected = RunSync(cpu, host_input);
  const int64_t shape[] = {2, 3, 16, 16};
  QvNDArrayHandle wrapped = nullptr;
  // The emulated device has nothing to wait for on a stream: any handle of a producer's is accepted.
  REQUIRE(QvNDArrayCreateFromDevicePointer(pixels.data(), shape, 4, QV_FLOAT32, QV_GPU, 0,
                                           reinterpret_cast<void*>(1), nullptr, nullptr, &wrapped) == QV_OK);
  CHECK(DeviceTypeOf(wrapped) == QV_GPU);
  QvNDArrayHandle output = Submit(gpu, wrapped);
  REQUIRE(QvNDArrayWaitToRead(output) == QV_OK);
  void* device_result = nullptr;
  REQUIRE(QvNDArrayGetDevicePointer(output, &device_result) == QV_OK);
  // Host memory underneath: the pointer the emulation hands out holds what a copy reads.
  std::vector<float> in_place(static_cast<const float*>(device_result),
                              static_cast<const float*>(device_result) + expected.size());
  std::vector<float> got;
  REQUIRE(Collect(output, &got) == QV_OK);
  CHECK(SameBits(got, expected));
  CHECK(SameBits(in_place, expected));
  QvNDArrayFree(wrapped);

  // A pointer less aligned than the kernels need is gathered into the plan's own buffer first.
  std::vector<float> shifted(pixels.size() + 16);
  float* misaligned = shifted.data() + (reinterpret_cast<uintptr_t>(shifted.data()) % 64 == 0 ? 1 : 0);
  std::copy(pixels.begin(), pixels.end(), misaligned);
  REQUIRE(QvNDArrayCreateFromDevicePointer(misaligned, shape, 4, QV_FLOAT32, QV_GPU, 0, nullptr, nullptr, nullptr,
                                           &wrapped) == QV_OK);
  REQUIRE(Collect(Submit(gpu, wrapped), &got) == QV_OK);
  CHECK(SameBits(got, expected));
  QvNDArrayFree(wrapped);
  QvNDArrayFree(host_input);
  FreeTinyModel(gpu);
  FreeTinyModel(cpu);
}
