// A small but real residual CNN, built in memory through the public C API only, for the C API suites.
//
//   data (N, 3, H, W)
//   -> conv0 Convolution(8, 3x3, pad 1) -> bn0 BatchNorm -> relu0 Activation(relu)
//   -> conv1 Convolution(8, 3x3, pad 1) -> bn1 BatchNorm -> add0 elemwise_add(bn1, relu0) -> relu1 relu
//   -> pool0 Pooling(global avg) -> flatten0 Flatten -> fc0 FullyConnected(10) -> softmax0 softmax
//
// Any N, H and W fit (the pooling is global). Parameters are seeded random values created with
// QvNDArrayCreate + QvNDArraySyncCopyFromCPU, named as an MXNet .params file names them ("arg:"/"aux:").
// Helpers throw std::runtime_error carrying QvGetLastError() when a call fails, so a Catch2 test that
// uses them fails with the runtime's own message.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "quiver/c_api.h"

namespace quiver_test {

using Flags = std::vector<std::pair<std::string, std::string>>;

constexpr int64_t kTinyInChannels = 3;
constexpr int64_t kTinyClasses = 10;
constexpr uint32_t kTinyDefaultSeed = 20240611;

// The symbol JSON (MXNet 1.x layout: "attrs", node_row_ptr, arg_nodes, three-element entries).
std::string TinyModelJson();

// One parameter's name (as stored, with its prefix) and shape.
struct ParamSpec {
  std::string name;
  std::vector<int64_t> shape;
};
std::vector<ParamSpec> TinyParamSpecs();

// Owns parameter arrays; frees them on destruction.
class TinyParams {
 public:
  TinyParams() = default;
  TinyParams(const TinyParams&) = delete;
  TinyParams& operator=(const TinyParams&) = delete;
  TinyParams(TinyParams&& other) noexcept;
  TinyParams& operator=(TinyParams&& other) noexcept;
  ~TinyParams();

  // Adds an array (owned from now on) under `name`.
  void Add(std::string name, QvNDArrayHandle array);
  // Drops (and frees) the parameter called `name`; false if there is none.
  bool Remove(const std::string& name);
  // Replaces the parameter `name` with a random one of `shape`.
  void Reshape(const std::string& name, const std::vector<int64_t>& shape, uint32_t seed);

  uint32_t size() const { return static_cast<uint32_t>(arrays_.size()); }
  // Pointers suitable for QvCreateCachedOpEx; valid until the next change.
  const char** names();
  QvNDArrayHandle* arrays() { return arrays_.data(); }

 private:
  void Clear();
  std::vector<std::string> names_;
  std::vector<const char*> name_ptrs_;
  std::vector<QvNDArrayHandle> arrays_;
};

// Random parameters for the tiny model (BatchNorm variances positive).
TinyParams MakeTinyParams(uint32_t seed = kTinyDefaultSeed);

// Creates the cached op from the tiny JSON and `params`; returns the status and leaves *out NULL on
// failure (QvGetLastError() tells why). Never throws for API failures.
int TryCreateCachedOp(const std::string& json, TinyParams& params, const Flags& flags, int thread_safe,
                      QvCachedOpHandle* out);

// A ready cached op for the tiny model. Throws on failure.
QvCachedOpHandle CreateTinyModel(int thread_safe, const Flags& flags = {}, uint32_t seed = kTinyDefaultSeed);
void FreeTinyModel(QvCachedOpHandle op);

// Deterministic pseudo-random floats in [lo, hi).
std::vector<float> RandomFloats(size_t count, uint32_t seed, float lo = -1.0f, float hi = 1.0f);

// A new CPU float32 array of `shape` holding RandomFloats(seed). Throws on failure.
QvNDArrayHandle MakeRandomArray(const std::vector<int64_t>& shape, uint32_t seed);
// A new CPU array of `shape` and `dtype` (zero-filled). Throws on failure.
QvNDArrayHandle MakeArray(const std::vector<int64_t>& shape, int dtype = QV_FLOAT32);

// Number of elements of an array. Throws on failure.
size_t ElementCount(QvNDArrayHandle array);
// The array's contents (float32), waiting for pending writes. Throws on failure.
std::vector<float> ReadFloats(QvNDArrayHandle array);

// Invokes `op` on one input, waits, copies the single output out and frees it. Throws on failure.
std::vector<float> RunSync(QvCachedOpHandle op, QvNDArrayHandle input);

// Frees every handle (ignoring NULLs) and clears the vector.
void FreeArrays(std::vector<QvNDArrayHandle>& arrays);

// QvGetMemoryStats as a pair (bytes_in_use, arrays_alive). Throws on failure.
std::pair<uint64_t, uint64_t> MemoryStats();
// MemoryStats once all pushed work has ended (QvWaitAll) and two readings a few milliseconds apart
// agree, so that frees deferred behind finished work are counted (bounded wait of about 1 s).
std::pair<uint64_t, uint64_t> SettledMemoryStats();

// "QV_ERR_SHAPE" for QV_ERR_SHAPE, for readable test failures.
const char* StatusName(int status);

// Case-insensitive substring test, for checking error messages.
bool ContainsNoCase(const std::string& haystack, const std::string& needle);

}  // namespace quiver_test
