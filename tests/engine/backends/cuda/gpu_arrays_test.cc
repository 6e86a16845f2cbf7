// GPU arrays through the C API: creation, copies through pinned staging, device errors, and what a
// cached op does with GPU parameters, and a small residual network run on a GPU.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "quiver/c_api.h"
#include "support/tiny_model.h"

namespace {

QvNDArrayHandle GpuArray(const std::vector<int64_t>& shape) {
  QvNDArrayHandle a = nullptr;
  INFO(QvGetLastError());
  REQUIRE(QvNDArrayCreate(shape.data(), static_cast<uint32_t>(shape.size()), QV_GPU, 0, QV_FLOAT32, &a) == QV_OK);
  return a;
}

TEST_CASE("GPU arrays are zero-filled and round-trip host data exactly", "[gpu]") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t n : {int64_t{1}, int64_t{1000}, int64_t{1} << 20, int64_t{3} << 20}) {
    INFO("elements: " << n);
    QvNDArrayHandle a = GpuArray({n});
    int type = -1, id = -1;
    CHECK(QvNDArrayGetDevice(a, &type, &id) == QV_OK);
    CHECK(type == QV_GPU);
    CHECK(id == 0);
    std::vector<float> in(static_cast<size_t>(n)), out(static_cast<size_t>(n), 1.0f);
    CHECK(QvNDArraySyncCopyToCPU(a, out.data(), out.size() * sizeof(float)) == QV_OK);
    CHECK(std::count(out.begin(), out.end(), 0.0f) == n);
    for (float& v : in) v = dist(rng);
    CHECK(QvNDArraySyncCopyFromCPU(a, in.data(), in.size() * sizeof(float)) == QV_OK);
    CHECK(QvNDArraySyncCopyToCPU(a, out.data(), out.size() * sizeof(float)) == QV_OK);
    CHECK(std::memcmp(in.data(), out.data(), in.size() * sizeof(float)) == 0);
    CHECK(QvNDArrayFree(a) == QV_OK);
  }
}

TEST_CASE("GPU arrays refuse host pointers and bad device ids", "[gpu]") {
  QvNDArrayHandle a = GpuArray({16});
  void* data = nullptr;
  CHECK(QvNDArrayGetData(a, &data) == QV_ERR_DEVICE);
  CHECK_THAT(QvGetLastError(), Catch::Contains("gpu(0)"));
  CHECK(QvNDArrayFree(a) == QV_OK);

  const int64_t shape[1] = {4};
  QvNDArrayHandle bad = nullptr;
  CHECK(QvNDArrayCreate(shape, 1, QV_GPU, 4096, QV_FLOAT32, &bad) == QV_ERR_DEVICE);
  CHECK_THAT(QvGetLastError(), Catch::Contains("gpu(4096) does not exist"));
}

TEST_CASE("An allocation bigger than the device fails with QV_ERR_OUT_OF_MEMORY and the device stays usable", "[gpu]") {
  const int64_t huge[1] = {int64_t{1} << 40};  // 4 TiB of floats
  QvNDArrayHandle a = nullptr;
  CHECK(QvNDArrayCreate(huge, 1, QV_GPU, 0, QV_FLOAT32, &a) == QV_ERR_OUT_OF_MEMORY);
  CHECK_THAT(QvGetLastError(), Catch::Contains("gpu(0) memory"));
  QvNDArrayHandle ok = GpuArray({1024});
  CHECK(QvNDArrayFree(ok) == QV_OK);
}

// Runs the tiny model's op once on `batch` images made on `device_type` (values i % period / period -
// 0.5) and returns its output.
std::vector<float> RunTiny(QvCachedOpHandle op, int device_type, int64_t batch, int period) {
  using namespace quiver_test;
  const int64_t shape[4] = {batch, kTinyInChannels, 9, 9};
  std::vector<float> input(static_cast<size_t>(batch * kTinyInChannels * 81));
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(i % period) / period - 0.5f;
  QvNDArrayHandle in = nullptr;
  REQUIRE(QvNDArrayCreate(shape, 4, device_type, 0, QV_FLOAT32, &in) == QV_OK);
  REQUIRE(QvNDArraySyncCopyFromCPU(in, input.data(), input.size() * sizeof(float)) == QV_OK);
  uint32_t n_out = 0;
  QvNDArrayHandle* outs = nullptr;
  REQUIRE(QvInvokeAsync(op, 1, &in, &n_out, &outs) == QV_OK);
  std::vector<float> result(static_cast<size_t>(batch * kTinyClasses));
  REQUIRE(QvNDArraySyncCopyToCPU(outs[0], result.data(), result.size() * sizeof(float)) == QV_OK);
  QvNDArrayFree(outs[0]);
  QvNDArrayFree(in);
  return result;
}

TEST_CASE("GPU parameters are copied into a CPU op", "[gpu]") {
  using namespace quiver_test;
  TinyParams cpu_params = MakeTinyParams();
  TinyParams gpu_params;
  for (const ParamSpec& spec : TinyParamSpecs()) {
    size_t count = 1;
    for (int64_t d : spec.shape) count *= static_cast<size_t>(d);
    std::vector<float> values(count);
    const char** names = cpu_params.names();
    for (uint32_t i = 0; i < cpu_params.size(); ++i)
      if (spec.name == names[i])
        REQUIRE(QvNDArraySyncCopyToCPU(cpu_params.arrays()[i], values.data(), count * sizeof(float)) == QV_OK);
    QvNDArrayHandle g = GpuArray(spec.shape);
    REQUIRE(QvNDArraySyncCopyFromCPU(g, values.data(), count * sizeof(float)) == QV_OK);
    gpu_params.Add(spec.name, g);
  }
  QvCachedOpHandle from_cpu = nullptr, from_gpu = nullptr;
  REQUIRE(TryCreateCachedOp(TinyModelJson(), cpu_params, {}, 1, &from_cpu) == QV_OK);
  INFO(QvGetLastError());
  REQUIRE(TryCreateCachedOp(TinyModelJson(), gpu_params, {}, 1, &from_gpu) == QV_OK);

  const std::vector<float> a = RunTiny(from_cpu, QV_CPU, 2, 17), b = RunTiny(from_gpu, QV_CPU, 2, 17);
  CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
  QvFreeCachedOp(from_cpu);
  QvFreeCachedOp(from_gpu);
}

TEST_CASE("The tiny residual network (conv + BatchNorm + residual add, pooling, FC, softmax) runs on gpu(0) as on the CPU", "[gpu]") {
  using namespace quiver_test;
  TinyParams params = MakeTinyParams();
  QvCachedOpHandle cpu = nullptr, gpu = nullptr;
  REQUIRE(TryCreateCachedOp(TinyModelJson(), params, {}, 1, &cpu) == QV_OK);
  INFO(QvGetLastError());
  REQUIRE(TryCreateCachedOp(TinyModelJson(), params, {{"device", "gpu(0)"}}, 1, &gpu) == QV_OK);

  const std::vector<float> want = RunTiny(cpu, QV_CPU, 3, 23), got = RunTiny(gpu, QV_GPU, 3, 23);
  // Softmax outputs: within 1e-5 of their scale, 1.
  for (size_t i = 0; i < want.size(); ++i) CHECK(std::abs(got[i] - want[i]) <= 1e-5f);
  QvFreeCachedOp(cpu);
  QvFreeCachedOp(gpu);
}

}  // namespace
