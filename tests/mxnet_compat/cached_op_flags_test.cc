// The drop-in's cached-op flags (mxnet_compat/cached_op_flags.cc): MXNet's own, and Quiver's own flags
// (the runtime's table, QvListCachedOpFlags) passed on as given.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "cached_op_flags.h"
#include "errors.h"
#include "mx_abi.h"

namespace {

mxc::CachedOpFlags Parse(const std::vector<std::pair<const char*, const char*>>& flags, size_t num_inputs = 4) {
  std::vector<const char*> keys, vals;
  for (const auto& [key, value] : flags) {
    keys.push_back(key);
    vals.push_back(value);
  }
  return mxc::ParseCachedOpFlags(static_cast<int>(keys.size()), keys.data(), vals.data(), num_inputs);
}

std::string FailureOf(const std::vector<std::pair<const char*, const char*>>& flags) {
  try {
    Parse(flags);
  } catch (const mxc::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("MXNet's flags parse as MXNet has them; Quiver's pass on in order", "[mxnet_compat]") {
  const mxc::CachedOpFlags f = Parse({{"static_alloc", "true"}, {"static_shape", "True"}, {"precision", "bfloat16"},
                                      {"data_indices", "[0]"}, {"param_indices", "[1, 2, 3]"},
                                      {"max_batch_size", "8"}, {"batch_timeout_us", "500"}});
  CHECK(f.static_shape);
  CHECK(f.data_indices == std::vector<size_t>{0});
  CHECK(f.param_indices == std::vector<size_t>{1, 2, 3});
  const std::vector<std::pair<std::string, std::string>> quiver = {
      {"precision", "bfloat16"}, {"max_batch_size", "8"}, {"batch_timeout_us", "500"}};
  CHECK(f.quiver == quiver);
  CHECK(Parse({}).quiver.empty());
}

TEST_CASE("a flag of neither MXNet nor Quiver is refused, naming both lists", "[mxnet_compat]") {
  const std::string message = FailureOf({{"max_batchsize", "8"}});
  CHECK(message.find("Cannot find argument 'max_batchsize'") != std::string::npos);
  CHECK(message.find("static_alloc") != std::string::npos);
  CHECK(message.find("Quiver's own: device, static_shape, max_inflight") != std::string::npos);
  // Where the op runs is MXNet's context, which the inputs carry.
  CHECK(FailureOf({{"device", "gpu(0)"}}).find("flag 'device'") != std::string::npos);
}

namespace {

// MXCreateCachedOpEx on the tiny fixture with `extra` flags after data_indices / param_indices, invoked
// once on a batch of two; returns "" or MXGetLastError's message.
std::string InvokeTinyWith(const std::vector<std::pair<std::string, std::string>>& extra) {
  const char* env = std::getenv("QUIVER_FIXTURES_DIR");
  const std::string dir = env && *env ? env : QUIVER_FIXTURES_DIR;
  SymbolHandle sym = nullptr;
  REQUIRE(MXSymbolCreateFromFile((dir + "/tiny-symbol.json").c_str(), &sym) == 0);
  uint32_t n = 0, n_names = 0, n_inputs = 0;
  NDArrayHandle* loaded = nullptr;
  const char** loaded_names = nullptr;
  const char** input_names = nullptr;
  REQUIRE(MXNDArrayLoad((dir + "/tiny-0000.params").c_str(), &n, &loaded, &n_names, &loaded_names) == 0);
  REQUIRE(NNSymbolListInputNames(sym, 0, &n_inputs, &input_names) == 0);
  std::map<std::string, NDArrayHandle> by_name;
  for (uint32_t i = 0; i < n_names; ++i) by_name[std::string(loaded_names[i]).substr(4)] = loaded[i];  // arg:, aux:
  const uint32_t shape[] = {2, 3, 16, 16};
  NDArrayHandle data = nullptr;
  REQUIRE(MXNDArrayCreate(shape, 4, 1, 0, 0, &data) == 0);
  std::vector<float> zeros(2 * 3 * 16 * 16, 0.f);
  REQUIRE(MXNDArraySyncCopyFromCPU(data, zeros.data(), zeros.size()) == 0);
  std::vector<NDArrayHandle> inputs = {data};
  std::string params = "[";
  for (uint32_t i = 1; i < n_inputs; ++i) {
    inputs.push_back(by_name.at(input_names[i]));
    params += (i > 1 ? ", " : "") + std::to_string(i);
  }
  params += "]";
  std::vector<std::pair<std::string, std::string>> flags = {{"data_indices", "[0]"}, {"param_indices", params}};
  flags.insert(flags.end(), extra.begin(), extra.end());
  std::vector<const char*> keys, vals;
  for (const auto& [key, value] : flags) {
    keys.push_back(key.c_str());
    vals.push_back(value.c_str());
  }
  CachedOpHandle op = nullptr;
  REQUIRE(MXCreateCachedOpEx(sym, static_cast<int>(keys.size()), keys.data(), vals.data(), &op) == 0);
  int n_out = 0;
  NDArrayHandle* outs = nullptr;
  const bool ok = MXInvokeCachedOp(op, static_cast<int>(inputs.size()), inputs.data(), &n_out, &outs) == 0 &&
                  MXNDArrayWaitToRead(outs[0]) == 0;
  const std::string message = ok ? "" : MXGetLastError();
  for (int i = 0; ok && i < n_out; ++i) MXNDArrayFree(outs[i]);
  MXFreeCachedOp(op);
  MXNDArrayFree(data);
  for (uint32_t i = 0; i < n; ++i) MXNDArrayFree(loaded[i]);
  MXSymbolFree(sym);
  return message;
}

}  // namespace

TEST_CASE("Quiver's flags reach the runtime through MXCreateCachedOpEx", "[mxnet_compat]") {
  CHECK(InvokeTinyWith({{"precision", "float32"}, {"max_batch_size", "4"}, {"batch_timeout_us", "100"}}).empty());
  // The runtime, not the drop-in, judges the value: so a bad one fails naming the flag.
  const std::string message = InvokeTinyWith({{"precision", "float16"}});
  CHECK(message.find("precision") != std::string::npos);
}
