// Bad inputs through the public C API: each gets its documented QvStatus and a QvGetLastError message
// naming the problem, the process never crashes, and a model loaded beforehand keeps working.
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <mutex>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "quiver/c_api.h"
#include "support/failure_checks.h"
#include "support/tiny_model.h"

using namespace quiver_test;

namespace {

// Whether this build and machine can create GPU arrays (then "GPU missing" cases do not apply).
bool GpuAvailable() {
  const int64_t shape[1] = {4};
  QvNDArrayHandle a = nullptr;
  if (QvNDArrayCreate(shape, 1, QV_GPU, 0, QV_FLOAT32, &a) != QV_OK) return false;
  QvNDArrayFree(a);
  return true;
}

int CreateWithFlags(const Flags& flags, QvCachedOpHandle* out) {
  TinyParams params = MakeTinyParams();
  return TryCreateCachedOp(TinyModelJson(), params, flags, 1, out);
}

std::string TempPath(const std::string& leaf) {
  return "/tmp/quiver-capi-" + std::to_string(::getpid()) + "-" + leaf;
}

void CountRelease(void* ctx) { static_cast<std::atomic<int>*>(ctx)->fetch_add(1); }

void IgnoreReady(QvNDArrayHandle, int, void*) {}

}  // namespace

TEST_CASE("library calls with NULL out-pointers are allowed where documented", "[capi]") {
  int major = -1, minor = -1, patch = -1;
  REQUIRE(QvGetVersion(&major, &minor, &patch) == QV_OK);
  CHECK(major == QV_API_VERSION);
  CHECK(minor >= 0);
  CHECK(patch >= 0);
  CHECK(QvGetVersion(nullptr, nullptr, nullptr) == QV_OK);
  CHECK(QvGetVersion(&major, nullptr, nullptr) == QV_OK);
  CHECK(QvGetMemoryStats(nullptr, nullptr) == QV_OK);
  uint64_t bytes = 0;
  CHECK(QvGetMemoryStats(&bytes, nullptr) == QV_OK);
  CHECK(QvGetLastError() != nullptr);
}

TEST_CASE("NULL handles and NULL out-pointers fail with QV_ERR_INVALID_ARGUMENT on every function", "[capi]") {
  LoadedModel model;
  QvSymbolHandle sym = nullptr;
  const std::string json = TinyModelJson();
  REQUIRE(QvSymbolCreateFromJSON(json.c_str(), &sym) == QV_OK);
  QvNDArrayHandle array = MakeArray({2, 3});
  const int64_t shape[2] = {2, 3};
  float buffer[6] = {0};
  uint32_t n = 0;
  const char** names = nullptr;
  const int64_t* shape_out = nullptr;
  int value = 0;
  QvSymbolHandle sym_out = nullptr;
  QvNDArrayHandle array_out = nullptr;
  QvNDArrayHandle* arrays_out = nullptr;
  QvCachedOpHandle op_out = nullptr;
  const auto before = SettledMemoryStats();
  const auto inv = STATUSES(QV_ERR_INVALID_ARGUMENT);

  SECTION("symbols") {
    EXPECT_QV_FAILURE(QvSymbolCreateFromFile(nullptr, &sym_out), inv, "null");
    EXPECT_QV_FAILURE(QvSymbolCreateFromFile("/tmp/whatever.json", nullptr), inv, "null");
    EXPECT_QV_FAILURE(QvSymbolCreateFromJSON(nullptr, &sym_out), inv, "null");
    EXPECT_QV_FAILURE(QvSymbolCreateFromJSON(json.c_str(), nullptr), inv, "null");
    EXPECT_QV_FAILURE(QvSymbolListInputs(nullptr, &n, &names), inv, "null");
    EXPECT_QV_FAILURE(QvSymbolListInputs(sym, nullptr, &names), inv, "null");
    EXPECT_QV_FAILURE(QvSymbolListInputs(sym, &n, nullptr), inv, "null");
    EXPECT_QV_FAILURE(QvSymbolListOutputs(nullptr, &n, &names), inv, "null");
    EXPECT_QV_FAILURE(QvSymbolListOutputs(sym, nullptr, &names), inv, "null");
    EXPECT_QV_FAILURE(QvSymbolListOutputs(sym, &n, nullptr), inv, "null");
    EXPECT_QV_FAILURE(QvSymbolFree(nullptr), inv, "null");
    CHECK(sym_out == nullptr);
  }

  SECTION("arrays") {
    std::atomic<int> released{0};
    EXPECT_QV_FAILURE(QvNDArrayCreate(nullptr, 2, QV_CPU, 0, QV_FLOAT32, &array_out), inv, "null");
    EXPECT_QV_FAILURE(QvNDArrayCreate(shape, 2, QV_CPU, 0, QV_FLOAT32, nullptr), inv, "null");
    EXPECT_QV_FAILURE(QvNDArrayCreateFromBuffer(nullptr, shape, 2, QV_FLOAT32, CountRelease, &released, &array_out),
                      inv, "null");
    EXPECT_QV_FAILURE(QvNDArrayCreateFromBuffer(buffer, nullptr, 2, QV_FLOAT32, CountRelease, &released, &array_out),
                      inv, "null");
    EXPECT_QV_FAILURE(QvNDArrayCreateFromBuffer(buffer, shape, 2, QV_FLOAT32, CountRelease, &released, nullptr), inv,
                      "null");
    CHECK(released.load() == 0);  // a failed wrap never calls release
    uint32_t n_names = 0;
    EXPECT_QV_FAILURE(QvNDArrayLoad(nullptr, &n, &arrays_out, &n_names, &names), inv, "null");
    EXPECT_QV_FAILURE(QvNDArrayLoad("/tmp/x.params", nullptr, &arrays_out, &n_names, &names), inv, "null");
    EXPECT_QV_FAILURE(QvNDArrayLoad("/tmp/x.params", &n, nullptr, &n_names, &names), inv, "null");
    EXPECT_QV_FAILURE(QvNDArrayLoad("/tmp/x.params", &n, &arrays_out, nullptr, &names), inv, "null");
    EXPECT_QV_FAILURE(QvNDArrayLoad("/tmp/x.params", &n, &arrays_out, &n_names, nullptr), inv, "null");
    const std::string bytes = ParamsBytes("arg:w", {2}, {1.0f, 2.0f});
    EXPECT_QV_FAILURE(QvNDArrayLoadFromBuffer(nullptr, 16, &n, &arrays_out, &n_names, &names), inv, "null");
    EXPECT_QV_FAILURE(QvNDArrayLoadFromBuffer(bytes.data(), bytes.size(), nullptr, &arrays_out, &n_names, &names),
                      inv, "null");
    EXPECT_QV_FAILURE(QvNDArrayLoadFromBuffer(bytes.data(), bytes.size(), &n, nullptr, &n_names, &names), inv, "null");
    EXPECT_QV_FAILURE(QvNDArrayLoadFromBuffer(bytes.data(), bytes.size(), &n, &arrays_out, nullptr, &names), inv,
                      "null");
    EXPECT_QV_FAILURE(QvNDArrayLoadFromBuffer(bytes.data(), bytes.size(), &n, &arrays_out, &n_names, nullptr), inv,
                      "null");
    EXPECT_QV_FAILURE(QvNDArrayGetShape(nullptr, &n, &shape_out), inv, "null");
    EXPECT_QV_FAILURE(QvNDArrayGetShape(array, nullptr, &shape_out), inv, "null");
    EXPECT_QV_FAILURE(QvNDArrayGetShape(array, &n, nullptr), inv, "null");
    EXPECT_QV_FAILURE(QvNDArrayGetDType(nullptr, &value), inv, "null");
    EXPECT_QV_FAILURE(QvNDArrayGetDType(array, nullptr), inv, "null");
    EXPECT_QV_FAILURE(QvNDArrayGetDevice(nullptr, &value, &value), inv, "null");
    EXPECT_QV_FAILURE(QvNDArrayGetDevice(array, nullptr, &value), inv, "null");
    EXPECT_QV_FAILURE(QvNDArrayGetDevice(array, &value, nullptr), inv, "null");
    void* data_out = nullptr;
    EXPECT_QV_FAILURE(QvNDArrayGetData(nullptr, &data_out), inv, "null");
    EXPECT_QV_FAILURE(QvNDArrayGetData(array, nullptr), inv, "null");
    EXPECT_QV_FAILURE(QvNDArraySyncCopyFromCPU(nullptr, buffer, sizeof(buffer)), inv, "null");
    EXPECT_QV_FAILURE(QvNDArraySyncCopyFromCPU(array, nullptr, sizeof(buffer)), inv, "null");
    EXPECT_QV_FAILURE(QvNDArraySyncCopyToCPU(nullptr, buffer, sizeof(buffer)), inv, "null");
    EXPECT_QV_FAILURE(QvNDArraySyncCopyToCPU(array, nullptr, sizeof(buffer)), inv, "null");
    EXPECT_QV_FAILURE(QvNDArrayCanRead(nullptr, &value), inv, "null");
    EXPECT_QV_FAILURE(QvNDArrayCanRead(array, nullptr), inv, "null");
    EXPECT_QV_FAILURE(QvNDArrayWaitToRead(nullptr), inv, "null");
    EXPECT_QV_FAILURE(QvNDArrayOnReady(nullptr, IgnoreReady, nullptr), inv, "null");
    EXPECT_QV_FAILURE(QvNDArrayOnReady(array, nullptr, nullptr), inv, "null");
    EXPECT_QV_FAILURE(QvNDArrayFree(nullptr), inv, "null");
    CHECK(array_out == nullptr);
  }

  SECTION("wrong byte counts in copies") {
    // The size must equal the array's; the message gives both numbers.
    EXPECT_QV_FAILURE(QvNDArraySyncCopyFromCPU(array, buffer, 5 * sizeof(float)),
                      STATUSES(QV_ERR_INVALID_ARGUMENT, QV_ERR_SHAPE), "20", "24");
    EXPECT_QV_FAILURE(QvNDArraySyncCopyToCPU(array, buffer, 7 * sizeof(float)),
                      STATUSES(QV_ERR_INVALID_ARGUMENT, QV_ERR_SHAPE), "28", "24");
  }

  SECTION("cached ops") {
    TinyParams params = MakeTinyParams();
    const char* keys[1] = {"static_shape"};
    const char* vals[1] = {"false"};
    const char* null_key[1] = {nullptr};
    EXPECT_QV_FAILURE(QvCreateCachedOpEx(nullptr, params.size(), params.names(), params.arrays(), 0, nullptr, nullptr,
                                         &op_out, 1),
                      inv, "null");
    EXPECT_QV_FAILURE(QvCreateCachedOpEx(sym, params.size(), params.names(), params.arrays(), 0, nullptr, nullptr,
                                         nullptr, 1),
                      inv, "null");
    EXPECT_QV_FAILURE(
        QvCreateCachedOpEx(sym, params.size(), nullptr, params.arrays(), 0, nullptr, nullptr, &op_out, 1), inv, "null");
    EXPECT_QV_FAILURE(
        QvCreateCachedOpEx(sym, params.size(), params.names(), nullptr, 0, nullptr, nullptr, &op_out, 1), inv, "null");
    EXPECT_QV_FAILURE(QvCreateCachedOpEx(sym, params.size(), params.names(), params.arrays(), 1, nullptr, vals,
                                         &op_out, 1),
                      inv, "null");
    EXPECT_QV_FAILURE(QvCreateCachedOpEx(sym, params.size(), params.names(), params.arrays(), 1, keys, nullptr,
                                         &op_out, 1),
                      inv, "null");
    EXPECT_QV_FAILURE(QvCreateCachedOpEx(sym, params.size(), params.names(), params.arrays(), 1, null_key, vals,
                                         &op_out, 1),
                      inv, "null");
    EXPECT_QV_FAILURE(QvCreateCachedOpEx(sym, params.size(), params.names(), params.arrays(), -1, keys, vals, &op_out,
                                         1),
                      inv, "-1");
    {
      // One parameter name, then one parameter handle, NULL inside the arrays.
      std::vector<const char*> some_names(params.names(), params.names() + params.size());
      some_names[3] = nullptr;
      EXPECT_QV_FAILURE(QvCreateCachedOpEx(sym, params.size(), some_names.data(), params.arrays(), 0, nullptr,
                                           nullptr, &op_out, 1),
                        inv, "null");
      std::vector<QvNDArrayHandle> some_arrays(params.arrays(), params.arrays() + params.size());
      some_arrays[5] = nullptr;
      EXPECT_QV_FAILURE(QvCreateCachedOpEx(sym, params.size(), params.names(), some_arrays.data(), 0, nullptr,
                                           nullptr, &op_out, 1),
                        inv, "null");
    }
    CHECK(op_out == nullptr);

    uint32_t num_outputs = 0;
    QvNDArrayHandle* outputs = nullptr;
    QvNDArrayHandle input = model.input;
    QvNDArrayHandle null_input = nullptr;
    EXPECT_QV_FAILURE(QvCachedOpListInputs(nullptr, &n, &names), inv, "null");
    EXPECT_QV_FAILURE(QvCachedOpListInputs(model.op, nullptr, &names), inv, "null");
    EXPECT_QV_FAILURE(QvCachedOpListInputs(model.op, &n, nullptr), inv, "null");
    EXPECT_QV_FAILURE(QvCachedOpListOutputs(nullptr, &n, &names), inv, "null");
    EXPECT_QV_FAILURE(QvCachedOpListOutputs(model.op, nullptr, &names), inv, "null");
    EXPECT_QV_FAILURE(QvCachedOpListOutputs(model.op, &n, nullptr), inv, "null");
    const char* json_out = nullptr;
    EXPECT_QV_FAILURE(QvCachedOpDescribe(nullptr, &json_out), inv, "null");
    EXPECT_QV_FAILURE(QvCachedOpDescribe(model.op, nullptr), inv, "null");
    CHECK(json_out == nullptr);
    EXPECT_QV_FAILURE(QvInvokeAsync(nullptr, 1, &input, &num_outputs, &outputs), inv, "null");
    EXPECT_QV_FAILURE(QvInvokeAsync(model.op, 1, nullptr, &num_outputs, &outputs), inv, "null");
    EXPECT_QV_FAILURE(QvInvokeAsync(model.op, 1, &null_input, &num_outputs, &outputs), inv, "null");
    EXPECT_QV_FAILURE(QvInvokeAsync(model.op, 1, &input, nullptr, &outputs), inv, "null");
    EXPECT_QV_FAILURE(QvInvokeAsync(model.op, 1, &input, &num_outputs, nullptr), inv, "null");
    EXPECT_QV_FAILURE(QvFreeCachedOp(nullptr), inv, "null");
  }

  QvNDArrayFree(array);
  QvSymbolFree(sym);
  // Every failed call above left nothing behind.
  CHECK(SettledMemoryStats().second == before.second - 1);
  model.CheckStillWorks();
}

TEST_CASE("malformed symbol JSON fails with a message naming the problem", "[capi]") {
  LoadedModel model;
  QvSymbolHandle sym = nullptr;

  SECTION("not JSON at all") {
    EXPECT_QV_FAILURE(QvSymbolCreateFromJSON("this is not json {", &sym), STATUSES(QV_ERR_PARSE), "json");
    EXPECT_QV_FAILURE(QvSymbolCreateFromJSON("", &sym), STATUSES(QV_ERR_PARSE), "json");
    // Valid JSON, but not an object.
    EXPECT_QV_FAILURE(QvSymbolCreateFromJSON("[1, 2, 3]", &sym), STATUSES(QV_ERR_PARSE), "object");
  }

  SECTION("missing \"nodes\"") {
    EXPECT_QV_FAILURE(QvSymbolCreateFromJSON(R"({"arg_nodes": [0], "heads": [[0, 0, 0]]})", &sym),
                      STATUSES(QV_ERR_PARSE), "nodes");
  }

  SECTION("an input that refers to a node that does not exist") {
    const char* json = R"({
      "nodes": [
        {"op": "null", "name": "data", "inputs": []},
        {"op": "Flatten", "name": "flatten_dangling", "inputs": [[7, 0, 0]]}
      ],
      "arg_nodes": [0], "heads": [[1, 0, 0]]})";
    EXPECT_QV_FAILURE(QvSymbolCreateFromJSON(json, &sym), STATUSES(QV_ERR_PARSE), "flatten_dangling", "7");
  }

  SECTION("an unknown operator: at load or at compile time, naming the operator and the node") {
    const char* json = R"({
      "nodes": [
        {"op": "null", "name": "data", "inputs": []},
        {"op": "QuiverHasNoSuchOp", "name": "mystery_node0", "attrs": {"k": "1"}, "inputs": [[0, 0, 0]]}
      ],
      "arg_nodes": [0], "heads": [[1, 0, 0]]})";
    PrimeLastError();
    int status = QvSymbolCreateFromJSON(json, &sym);
    if (status == QV_OK) {
      QvCachedOpHandle op = nullptr;
      status = QvCreateCachedOpEx(sym, 0, nullptr, nullptr, 0, nullptr, nullptr, &op, 1);
      CHECK(op == nullptr);
      const std::string message = QvGetLastError();  // survives the successful free below
      QvSymbolFree(sym);
      sym = nullptr;
      INFO("message: " << message);
      CHECK(status == QV_ERR_UNSUPPORTED);
      CHECK(ContainsNoCase(message, "QuiverHasNoSuchOp"));
      CHECK(ContainsNoCase(message, "mystery_node0"));
    } else {
      CheckFailure(status, {QV_ERR_UNSUPPORTED}, {"QuiverHasNoSuchOp", "mystery_node0"});
    }
  }

  SECTION("a file with bad JSON names the file") {
    const std::string path = TempPath("bad-symbol.json");
    {
      std::ofstream out(path);
      out << "{\"nodes\": [";
    }
    EXPECT_QV_FAILURE(QvSymbolCreateFromFile(path.c_str(), &sym), STATUSES(QV_ERR_PARSE), path.c_str());
    std::remove(path.c_str());
  }

  CHECK(sym == nullptr);
  model.CheckStillWorks();
}

TEST_CASE("missing files fail with QV_ERR_NOT_FOUND naming the path", "[capi]") {
  LoadedModel model;
  const char* missing_symbol = "/nonexistent-quiver-dir/model-symbol.json";
  const char* missing_params = "/nonexistent-quiver-dir/model-0000.params";
  QvSymbolHandle sym = nullptr;
  EXPECT_QV_FAILURE(QvSymbolCreateFromFile(missing_symbol, &sym), STATUSES(QV_ERR_NOT_FOUND), missing_symbol);
  CHECK(sym == nullptr);
  uint32_t n = 0, n_names = 0;
  QvNDArrayHandle* arrays = nullptr;
  const char** names = nullptr;
  EXPECT_QV_FAILURE(QvNDArrayLoad(missing_params, &n, &arrays, &n_names, &names), STATUSES(QV_ERR_NOT_FOUND),
                    missing_params);
  model.CheckStillWorks();
}

TEST_CASE("bad .params bytes fail with QV_ERR_PARSE and return nothing", "[capi]") {
  LoadedModel model;
  uint32_t n = 0, n_names = 0;
  QvNDArrayHandle* arrays = nullptr;
  const char** names = nullptr;
  const std::vector<float> values = {1.5f, -2.0f, 3.25f, 4.0f, 0.5f, -6.0f};
  const std::string good = ParamsBytes("arg:w", {2, 3}, values);

  SECTION("well-formed bytes load (the control case)") {
    REQUIRE(QvNDArrayLoadFromBuffer(good.data(), good.size(), &n, &arrays, &n_names, &names) == QV_OK);
    REQUIRE(n == 1);
    REQUIRE(n_names == 1);
    CHECK(std::string(names[0]) == "arg:w");
    CHECK(ReadFloats(arrays[0]) == values);
    QvNDArrayFree(arrays[0]);
  }

  const auto before = SettledMemoryStats();

  SECTION("wrong magic") {
    const std::string bytes = ParamsBytes("arg:w", {2, 3}, values, 0x113);
    EXPECT_QV_FAILURE(QvNDArrayLoadFromBuffer(bytes.data(), bytes.size(), &n, &arrays, &n_names, &names),
                      STATUSES(QV_ERR_PARSE), "magic");
  }

  SECTION("truncated at every length") {
    for (size_t len = 0; len < good.size(); ++len) {
      INFO("truncated to " << len << " of " << good.size() << " bytes");
      EXPECT_QV_FAILURE(QvNDArrayLoadFromBuffer(good.data(), len, &n, &arrays, &n_names, &names),
                        STATUSES(QV_ERR_PARSE), "offset");
    }
  }

  SECTION("a shape of 2^40 elements with a few bytes of data") {
    const std::string bytes = ParamsBytes("arg:huge", {1 << 20, 1 << 20}, values);
    EXPECT_QV_FAILURE(QvNDArrayLoadFromBuffer(bytes.data(), bytes.size(), &n, &arrays, &n_names, &names),
                      STATUSES(QV_ERR_PARSE), "1048576");
  }

  SECTION("a dtype flag MXNet does not have") {
    const std::string bytes = ParamsBytes("arg:w", {2, 3}, values, 0x112, 77);
    EXPECT_QV_FAILURE(QvNDArrayLoadFromBuffer(bytes.data(), bytes.size(), &n, &arrays, &n_names, &names),
                      STATUSES(QV_ERR_PARSE, QV_ERR_UNSUPPORTED), "77");
  }

  SECTION("a file with garbage names the file") {
    const std::string path = TempPath("garbage.params");
    {
      std::ofstream out(path, std::ios::binary);
      out << "definitely not an MXNet params file";
    }
    EXPECT_QV_FAILURE(QvNDArrayLoad(path.c_str(), &n, &arrays, &n_names, &names), STATUSES(QV_ERR_PARSE),
                      path.c_str());
    std::remove(path.c_str());
  }

  // Nothing was half-returned: no array was created by a failed load.
  CHECK(SettledMemoryStats().second == before.second);
  model.CheckStillWorks();
}

TEST_CASE("bad array creation arguments", "[capi]") {
  LoadedModel model;
  QvNDArrayHandle array = nullptr;

  SECTION("negative dimensions") {
    const int64_t shape[3] = {2, -3, 4};
    EXPECT_QV_FAILURE(QvNDArrayCreate(shape, 3, QV_CPU, 0, QV_FLOAT32, &array), STATUSES(QV_ERR_SHAPE), "-3");
    float buffer[8];
    std::atomic<int> released{0};
    EXPECT_QV_FAILURE(
        QvNDArrayCreateFromBuffer(buffer, shape, 3, QV_FLOAT32, CountRelease, &released, &array),
        STATUSES(QV_ERR_SHAPE), "-3");
    CHECK(released.load() == 0);
  }

  SECTION("unknown dtype codes") {
    const int64_t shape[2] = {2, 2};
    EXPECT_QV_FAILURE(QvNDArrayCreate(shape, 2, QV_CPU, 0, 42, &array),
                      STATUSES(QV_ERR_INVALID_ARGUMENT, QV_ERR_UNSUPPORTED), "42");
    EXPECT_QV_FAILURE(QvNDArrayCreate(shape, 2, QV_CPU, 0, -1, &array),
                      STATUSES(QV_ERR_INVALID_ARGUMENT, QV_ERR_UNSUPPORTED), "-1");
  }

  SECTION("sizes that cannot be allocated") {
    // 2^46 float32 elements is 256 TiB: more than any x86-64 user address space, whatever the overcommit policy.
    const int64_t huge[2] = {int64_t{1} << 23, int64_t{1} << 23};
    EXPECT_QV_FAILURE(QvNDArrayCreate(huge, 2, QV_CPU, 0, QV_FLOAT32, &array), STATUSES(QV_ERR_OUT_OF_MEMORY),
                      "8388608");
    // Element count * 4 overflows 64 bits.
    const int64_t overflow[2] = {int64_t{1} << 62, 4};
    EXPECT_QV_FAILURE(QvNDArrayCreate(overflow, 2, QV_CPU, 0, QV_FLOAT32, &array), STATUSES(QV_ERR_OUT_OF_MEMORY),
                      "4611686018427387904");
  }

  SECTION("devices this build or machine lacks") {
    const int64_t shape[1] = {4};
    if (GpuAvailable()) {
      WARN("a GPU is available: the missing-GPU case does not apply");
    } else {
      EXPECT_QV_FAILURE(QvNDArrayCreate(shape, 1, QV_GPU, 0, QV_FLOAT32, &array), STATUSES(QV_ERR_DEVICE), "gpu");
    }
    EXPECT_QV_FAILURE(QvNDArrayCreate(shape, 1, QV_GPU, 4096, QV_FLOAT32, &array), STATUSES(QV_ERR_DEVICE), "4096");
    EXPECT_QV_FAILURE(QvNDArrayCreate(shape, 1, 9, 0, QV_FLOAT32, &array),
                      STATUSES(QV_ERR_DEVICE, QV_ERR_INVALID_ARGUMENT), "9");
  }

  CHECK(array == nullptr);
  model.CheckStillWorks();
}

TEST_CASE("QvCreateCachedOpEx rejects bad parameters and flags, naming them", "[capi]") {
  LoadedModel model;
  QvCachedOpHandle op = nullptr;
  const auto before = SettledMemoryStats();

  SECTION("a missing parameter") {
    TinyParams params = MakeTinyParams();
    REQUIRE(params.Remove("arg:conv1_weight"));
    EXPECT_QV_FAILURE(TryCreateCachedOp(TinyModelJson(), params, {}, 1, &op), STATUSES(QV_ERR_NOT_FOUND),
                      "conv1_weight");
  }

  SECTION("a missing auxiliary state") {
    TinyParams params = MakeTinyParams();
    REQUIRE(params.Remove("aux:bn0_moving_var"));
    EXPECT_QV_FAILURE(TryCreateCachedOp(TinyModelJson(), params, {}, 1, &op), STATUSES(QV_ERR_NOT_FOUND),
                      "bn0_moving_var");
  }

  SECTION("a mis-shaped convolution weight") {
    TinyParams params = MakeTinyParams();
    params.Reshape("arg:conv1_weight", {8, 8, 5, 5}, 3);
    EXPECT_QV_FAILURE(TryCreateCachedOp(TinyModelJson(), params, {}, 1, &op), STATUSES(QV_ERR_SHAPE), "conv1_weight",
                      "(8, 8, 5, 5)");
  }

  SECTION("a mis-shaped fully-connected weight") {
    TinyParams params = MakeTinyParams();
    params.Reshape("arg:fc0_weight", {7, 8}, 3);
    EXPECT_QV_FAILURE(TryCreateCachedOp(TinyModelJson(), params, {}, 1, &op), STATUSES(QV_ERR_SHAPE), "fc0_weight");
  }

  SECTION("an unknown flag") {
    EXPECT_QV_FAILURE(CreateWithFlags({{"turbo_mode", "on"}}, &op), STATUSES(QV_ERR_INVALID_ARGUMENT), "turbo_mode");
  }

  SECTION("bad device strings") {
    for (const char* device : {"tpu(0)", "gpu(", "cpu(x)", ""}) {
      INFO("device=\"" << device << "\"");
      EXPECT_QV_FAILURE(CreateWithFlags({{"device", device}}, &op), STATUSES(QV_ERR_INVALID_ARGUMENT, QV_ERR_DEVICE),
                        "device");
    }
    EXPECT_QV_FAILURE(CreateWithFlags({{"device", "tpu(0)"}}, &op), STATUSES(QV_ERR_INVALID_ARGUMENT), "tpu(0)");
  }

  SECTION("a GPU device on a machine without one") {
    if (GpuAvailable()) {
      WARN("a GPU is available: the missing-GPU case does not apply");
    } else {
      EXPECT_QV_FAILURE(CreateWithFlags({{"device", "gpu(0)"}}, &op), STATUSES(QV_ERR_DEVICE), "gpu");
    }
    EXPECT_QV_FAILURE(CreateWithFlags({{"device", "gpu(4096)"}}, &op), STATUSES(QV_ERR_DEVICE), "4096");
  }

  SECTION("bad max_inflight values") {
    for (const char* value : {"0", "-3", "lots", "", "1.5", "99999999999999999999"}) {
      INFO("max_inflight=\"" << value << "\"");
      EXPECT_QV_FAILURE(CreateWithFlags({{"max_inflight", value}}, &op), STATUSES(QV_ERR_INVALID_ARGUMENT),
                        "max_inflight");
    }
  }

  SECTION("a bad static_shape value") {
    EXPECT_QV_FAILURE(CreateWithFlags({{"static_shape", "sometimes"}}, &op), STATUSES(QV_ERR_INVALID_ARGUMENT),
                      "static_shape");
  }

  CHECK(op == nullptr);
  // A failed creation keeps no copy of any parameter.
  CHECK(SettledMemoryStats().second == before.second);
  model.CheckStillWorks();
}

TEST_CASE("QvInvokeAsync rejects wrong inputs and outputs without running anything", "[capi]") {
  LoadedModel model;
  uint32_t num_outputs = 0;
  QvNDArrayHandle* outputs = nullptr;

  SECTION("the wrong number of inputs") {
    QvNDArrayHandle two[2] = {model.input, model.input};
    EXPECT_QV_FAILURE(QvInvokeAsync(model.op, 2, two, &num_outputs, &outputs), STATUSES(QV_ERR_INVALID_ARGUMENT),
                      "2");
    EXPECT_QV_FAILURE(QvInvokeAsync(model.op, 0, two, &num_outputs, &outputs), STATUSES(QV_ERR_INVALID_ARGUMENT),
                      "0");
  }

  SECTION("the wrong dtype") {
    QvNDArrayHandle input = MakeArray({1, 3, 16, 16}, QV_FLOAT64);
    EXPECT_QV_FAILURE(QvInvokeAsync(model.op, 1, &input, &num_outputs, &outputs), STATUSES(QV_ERR_SHAPE), "data",
                      "float64");
    QvNDArrayFree(input);
  }

  SECTION("the wrong ndim") {
    QvNDArrayHandle input = MakeRandomArray({3, 16, 16}, 5);
    EXPECT_QV_FAILURE(QvInvokeAsync(model.op, 1, &input, &num_outputs, &outputs), STATUSES(QV_ERR_SHAPE), "data");
    QvNDArrayFree(input);
  }

  SECTION("a channel count the first convolution does not take") {
    QvNDArrayHandle input = MakeRandomArray({1, 4, 16, 16}, 5);
    PrimeLastError();
    const int status = QvInvokeAsync(model.op, 1, &input, &num_outputs, &outputs);
    const std::string message = QvGetLastError();
    INFO("message: " << message);
    CheckFailure(status, {QV_ERR_SHAPE}, {"4"});
    CHECK((ContainsNoCase(message, "conv0") || ContainsNoCase(message, "data")));
    QvNDArrayFree(input);
  }

  SECTION("caller-provided outputs of the wrong shape, dtype or count leave them untouched") {
    std::vector<float> sentinel(5, 123.0f);
    const int64_t wrong_shape[2] = {1, 5};
    QvNDArrayHandle wrong = nullptr;
    REQUIRE(QvNDArrayCreateFromBuffer(sentinel.data(), wrong_shape, 2, QV_FLOAT32, nullptr, nullptr, &wrong) == QV_OK);
    QvNDArrayHandle provided[2] = {wrong, nullptr};
    QvNDArrayHandle* out = provided;
    num_outputs = 1;
    EXPECT_QV_FAILURE(QvInvokeAsync(model.op, 1, &model.input, &num_outputs, &out), STATUSES(QV_ERR_SHAPE), "(1, 5)");
    CHECK(out == provided);
    CHECK(sentinel == std::vector<float>(5, 123.0f));

    QvNDArrayHandle wrong_dtype = MakeArray({1, kTinyClasses}, QV_FLOAT64);
    provided[0] = wrong_dtype;
    out = provided;
    num_outputs = 1;
    EXPECT_QV_FAILURE(QvInvokeAsync(model.op, 1, &model.input, &num_outputs, &out), STATUSES(QV_ERR_SHAPE),
                      "float64");

    QvNDArrayHandle right = MakeArray({1, kTinyClasses});
    provided[0] = right;
    provided[1] = right;
    out = provided;
    num_outputs = 2;
    EXPECT_QV_FAILURE(QvInvokeAsync(model.op, 1, &model.input, &num_outputs, &out),
                      STATUSES(QV_ERR_INVALID_ARGUMENT), "2");
    QvNDArrayFree(right);
    QvNDArrayFree(wrong_dtype);
    QvNDArrayFree(wrong);
  }

  model.CheckStillWorks();
}

TEST_CASE("static_shape=true fixes the shape at the first invocation", "[capi]") {
  LoadedModel model(Flags{{"static_shape", "true"}});
  QvNDArrayHandle batch2 = MakeRandomArray({2, 3, 16, 16}, 8);
  uint32_t num_outputs = 0;
  QvNDArrayHandle* outputs = nullptr;
  EXPECT_QV_FAILURE(QvInvokeAsync(model.op, 1, &batch2, &num_outputs, &outputs), STATUSES(QV_ERR_SHAPE),
                    "(2, 3, 16, 16)");
  QvNDArrayHandle bigger = MakeRandomArray({1, 3, 20, 20}, 8);
  EXPECT_QV_FAILURE(QvInvokeAsync(model.op, 1, &bigger, &num_outputs, &outputs), STATUSES(QV_ERR_SHAPE),
                    "(1, 3, 20, 20)");
  QvNDArrayFree(bigger);
  QvNDArrayFree(batch2);
  model.CheckStillWorks();

  // The default (static_shape=false) takes both.
  QvCachedOpHandle dynamic = CreateTinyModel(1);
  QvNDArrayHandle other = MakeRandomArray({2, 3, 16, 16}, 8);
  CHECK(RunSync(dynamic, other).size() == 2 * static_cast<size_t>(kTinyClasses));
  QvNDArrayFree(other);
  FreeTinyModel(dynamic);
}

TEST_CASE("max_inflight=1 with an invocation in flight fails fast with QV_ERR_BUSY", "[capi]") {
  QvCachedOpHandle op = CreateTinyModel(1, {{"max_inflight", "1"}});
  // Large enough that the computation takes far longer than the two calls below.
  QvNDArrayHandle big = MakeRandomArray({48, 3, 160, 160}, 21);
  QvNDArrayHandle small = MakeRandomArray({1, 3, 16, 16}, 22);
  // Compile both plans first so that the timed calls below only admit or refuse.
  const std::vector<float> small_expected = RunSync(op, small);
  const std::vector<float> big_expected = RunSync(op, big);

  uint32_t num_outputs = 0;
  QvNDArrayHandle* outputs = nullptr;
  REQUIRE(QvInvokeAsync(op, 1, &big, &num_outputs, &outputs) == QV_OK);
  REQUIRE(num_outputs == 1);
  QvNDArrayHandle in_flight = outputs[0];
  int ready = -1;
  REQUIRE(QvNDArrayCanRead(in_flight, &ready) == QV_OK);
  if (ready) {
    WARN("the big invocation finished before the next call: cannot test QV_ERR_BUSY on this machine");
  } else {
    for (QvNDArrayHandle input : {big, small}) {
      uint32_t n2 = 0;
      QvNDArrayHandle* out2 = nullptr;
      PrimeLastError();
      const auto start = std::chrono::steady_clock::now();
      const int status = QvInvokeAsync(op, 1, &input, &n2, &out2);
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      int still_running = -1;
      REQUIRE(QvNDArrayCanRead(in_flight, &still_running) == QV_OK);
      if (status == QV_OK) {
        for (uint32_t i = 0; i < n2; ++i) QvNDArrayFree(out2[i]);
        // Only acceptable if the first invocation had already ended.
        CHECK(still_running == 1);
      } else {
        CheckFailure(status, {QV_ERR_BUSY}, {"max_inflight"});
        CHECK(ms < 50.0);
      }
    }
  }
  // The admitted invocation is unaffected.
  const std::vector<float> got = ReadFloats(in_flight);
  REQUIRE(got.size() == big_expected.size());
  CHECK(std::memcmp(got.data(), big_expected.data(), got.size() * sizeof(float)) == 0);
  QvNDArrayFree(in_flight);

  // Once it has ended, the op admits again.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
  int status = QV_ERR_BUSY;
  int busy_after_ready = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    status = QvInvokeAsync(op, 1, &small, &num_outputs, &outputs);
    if (status != QV_ERR_BUSY) break;
    ++busy_after_ready;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  REQUIRE(status == QV_OK);
  if (busy_after_ready) WARN("QV_ERR_BUSY " << busy_after_ready << " time(s) after the output became readable");
  const std::vector<float> again = ReadFloats(outputs[0]);
  QvNDArrayFree(outputs[0]);
  CHECK(std::memcmp(again.data(), small_expected.data(), again.size() * sizeof(float)) == 0);

  QvNDArrayFree(small);
  QvNDArrayFree(big);
  FreeTinyModel(op);
}

TEST_CASE("QvGetLastError is thread-local", "[capi]") {
  std::mutex mu;
  std::condition_variable cv;
  int step = 0;
  auto wait_for = [&](int s) {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return step >= s; });
  };
  auto advance = [&] {
    {
      std::lock_guard<std::mutex> lock(mu);
      ++step;
    }
    cv.notify_all();
  };
  std::string a_after, b_after;
  int a_status = 0, b_status = 0;

  PrimeLastError();
  std::thread a([&] {
    QvSymbolHandle sym = nullptr;
    a_status = QvSymbolCreateFromFile("/nonexistent-quiver-dir/thread-a-only.json", &sym);
    advance();  // step 1: A failed
    wait_for(2);
    a_after = QvGetLastError();  // B failed meanwhile on its own thread
    advance();  // step 3
  });
  std::thread b([&] {
    wait_for(1);
    QvSymbolHandle sym = nullptr;
    b_status = QvSymbolCreateFromJSON("{ thread-b-only", &sym);
    advance();  // step 2: B failed
    wait_for(3);
    b_after = QvGetLastError();
  });
  a.join();
  b.join();
  CHECK(a_status == QV_ERR_NOT_FOUND);
  CHECK(b_status == QV_ERR_PARSE);
  INFO("A: " << a_after << "\nB: " << b_after);
  CHECK(ContainsNoCase(a_after, "thread-a-only"));
  CHECK_FALSE(ContainsNoCase(b_after, "thread-a-only"));
  CHECK(ContainsNoCase(b_after, "json"));
  // Neither touched this thread's message.
  CHECK(ContainsNoCase(QvGetLastError(), "quiver-primer-marker"));

  // A thread that never failed sees "".
  std::string fresh = "unset";
  std::thread c([&] { fresh = QvGetLastError(); });
  c.join();
  CHECK(fresh.empty());
}
