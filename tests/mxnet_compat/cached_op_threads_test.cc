// The thread-safe cached op the way MXNet's example/multi_threaded_inference drives it: load the
// symbol and the parameters, create the op with data_indices / param_indices / static_alloc /
// static_shape and thread_safe = true, invoke it from 8 threads at once passing the parameters
// every time, then MXNDArrayWaitAll and read every thread's output.
//   cached_op_threads_test FIXTURES_DIR
#include <stdbool.h>
#include <stdint.h>

#include <mxnet/c_api.h>

#include <map>
#include <string>
#include <thread>
#include <vector>

#include "compat_test_support.h"

// nnvm's C API, which libmxnet.so exports; the wheel ships no nnvm/c_api.h, so programs declare it
// (with nnvm's nn_uint = uint32_t), as MXNet's own Python package does through ctypes.
extern "C" int NNSymbolListInputNames(SymbolHandle symbol, int option, uint32_t* out_size,
                                      const char*** out_str_array);

namespace {

constexpr int kThreads = 8;
constexpr uint32_t kInput = 3 * 224 * 224;

std::string Strip(const std::string& name) {
  return name.compare(0, 4, "arg:") == 0 || name.compare(0, 4, "aux:") == 0 ? name.substr(4) : name;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s FIXTURES_DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  float* input = read_floats(argv[1], "resnet18_v1-in-1x3x224x224.f32", kInput);
  float* want = read_floats(argv[1], "resnet18_v1-out-1x3x224x224.f32", 1000);
  SymbolHandle sym = nullptr;
  EXPECT(MXSymbolCreateFromFile((dir + "/resnet18_v1-symbol.json").c_str(), &sym) == 0, "symbol: %s",
         MXGetLastError());
  uint32_t n_params = 0, n_names = 0;
  NDArrayHandle* loaded = nullptr;
  const char** loaded_names = nullptr;
  EXPECT(MXNDArrayLoad((dir + "/resnet18_v1-0000.params").c_str(), &n_params, &loaded, &n_names, &loaded_names) == 0,
         "params: %s", MXGetLastError());
  if (!sym || !input || !want || n_params == 0) return summary("cached_op_threads_test");
  std::map<std::string, NDArrayHandle> params;
  for (uint32_t i = 0; i < n_names; ++i) params[Strip(loaded_names[i])] = loaded[i];

  // The inputs in the symbol's list_inputs order: arguments and auxiliary states together.
  uint32_t n_inputs = 0, n_args = 0, n_aux = 0;
  const char** input_names = nullptr;
  const char** names = nullptr;
  EXPECT(NNSymbolListInputNames(sym, 0, &n_inputs, &input_names) == 0, "%s", MXGetLastError());
  std::vector<std::string> inputs(input_names, input_names + n_inputs);
  EXPECT(MXSymbolListArguments(sym, &n_args, &names) == 0 && n_args > 0 && std::string(names[0]) == "data",
         "arguments: %s", MXGetLastError());
  EXPECT(MXSymbolListAuxiliaryStates(sym, &n_aux, &names) == 0 && n_aux > 0, "aux: %s", MXGetLastError());
  EXPECT(n_args + n_aux == n_inputs && n_params == n_inputs - 1, "%u args + %u aux vs %u inputs, %u params", n_args,
         n_aux, n_inputs, n_params);
  EXPECT(MXSymbolListOutputs(sym, &n_args, &names) == 0 && n_args == 1 &&
             std::string(names[0]) == "resnetv10_dense0_fwd_output",
         "outputs: %s", n_args ? names[0] : "none");

  // The internals: every visible output of every node, in depth-first order, named as MXNet names them.
  SymbolHandle internals = nullptr;
  EXPECT(MXSymbolGetInternals(sym, &internals) == 0, "internals: %s", MXGetLastError());
  uint32_t n_internal = 0;
  EXPECT(internals && MXSymbolListOutputs(internals, &n_internal, &names) == 0 && n_internal > 2 &&
             std::string(names[0]) == "data" && std::string(names[n_internal - 1]) == "resnetv10_dense0_fwd_output",
         "internal outputs: %u", n_internal);
  std::vector<float> internal_digest;  // the count and each name's length, to hold both libraries to each other
  internal_digest.push_back(static_cast<float>(n_internal));
  for (uint32_t i = 0; i < n_internal; ++i) internal_digest.push_back(static_cast<float>(std::string(names[i]).size()));
  save_or_compare("internals_digest", internal_digest.data(), internal_digest.size());
  if (internals) MXSymbolFree(internals);

  std::string data_indices, param_indices = "[";
  for (uint32_t i = 0; i < n_inputs; ++i) {
    if (inputs[i] == "data") {
      data_indices = "[" + std::to_string(i) + "]";
    } else {
      param_indices += (param_indices.size() > 1 ? ", " : "") + std::to_string(i);
    }
  }
  param_indices += "]";
  const char* keys[] = {"data_indices", "param_indices", "static_alloc", "static_shape"};
  const char* vals[] = {data_indices.c_str(), param_indices.c_str(), "true", "true"};
  CachedOpHandle op = nullptr;
  EXPECT(MXCreateCachedOpEX(sym, 4, keys, vals, &op, true) == 0, "MXCreateCachedOpEX: %s", MXGetLastError());

  // One input array per thread, as the example makes them.
  const uint32_t shape[4] = {1, 3, 224, 224};
  std::vector<std::vector<NDArrayHandle>> args(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    for (const std::string& name : inputs) {
      if (name != "data") {
        args[t].push_back(params[name]);
        continue;
      }
      NDArrayHandle d = nullptr;
      EXPECT(MXNDArrayCreateEx(shape, 4, 1, 0, 0, 0, &d) == 0, "create: %s", MXGetLastError());
      EXPECT(MXNDArraySyncCopyFromCPU(d, input, kInput) == 0, "copy in: %s", MXGetLastError());
      args[t].push_back(d);
    }
  }
  std::vector<NDArrayHandle> outputs(kThreads, nullptr);
  std::vector<int> status(kThreads, -1);
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads && op; ++t) {
    threads.emplace_back([&, t] {
      int n_out = 0;
      NDArrayHandle* out = nullptr;
      const int* stypes = nullptr;
      status[t] = MXInvokeCachedOpEx(op, static_cast<int>(args[t].size()), args[t].data(), &n_out, &out, &stypes);
      if (status[t] == 0 && n_out == 1 && stypes[0] == 0) {
        outputs[t] = out[0];
      } else {
        errors[t] = MXGetLastError();
        status[t] = status[t] == 0 ? -2 : status[t];
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT(MXNDArrayWaitAll() == 0, "WaitAll: %s", MXGetLastError());
  std::vector<float> got(1000);
  for (int t = 0; t < kThreads && op; ++t) {
    EXPECT(status[t] == 0, "thread %d: invoke returned %d: %s", t, status[t], errors[t].c_str());
    if (!outputs[t]) continue;
    uint32_t ndim = 0;
    const uint32_t* oshape = nullptr;
    EXPECT(MXNDArrayGetShape(outputs[t], &ndim, &oshape) == 0 && ndim == 2 && oshape[1] == 1000, "output shape");
    int dtype = -1, dev = -1, dev_id = -1;
    EXPECT(MXNDArrayGetDType(outputs[t], &dtype) == 0 && dtype == 0, "dtype %d", dtype);
    EXPECT(MXNDArrayGetContext(outputs[t], &dev, &dev_id) == 0 && dev == 1, "device %d", dev);
    EXPECT(MXNDArraySyncCopyToCPU(outputs[t], got.data(), 1000) == 0, "copy out: %s", MXGetLastError());
    char what[64];
    snprintf(what, sizeof what, "thread %d", t);
    expect_close(what, got.data(), want, 1000);
    if (t == 0) save_or_compare("cached_op_resnet18_v1", got.data(), 1000);
    MXNDArrayFree(outputs[t]);
  }

  // Parameters come with every call: after one is written, the next call must use its new value
  // (Quiver binds parameters once, so it has to notice and bind again). Adding 1 to the classifier's
  // bias adds 1 to every logit.
  const std::string bias = "resnetv10_dense0_bias";
  if (op && params.count(bias)) {
    std::vector<float> b(1000);
    EXPECT(MXNDArraySyncCopyToCPU(params[bias], b.data(), 1000) == 0, "read bias: %s", MXGetLastError());
    for (float& v : b) v += 1.0f;
    EXPECT(MXNDArraySyncCopyFromCPU(params[bias], b.data(), 1000) == 0, "write bias: %s", MXGetLastError());
    int n_out = 0;
    NDArrayHandle* out = nullptr;
    EXPECT(MXInvokeCachedOp(op, static_cast<int>(args[0].size()), args[0].data(), &n_out, &out) == 0 && n_out == 1,
           "invoke after the change: %s", MXGetLastError());
    if (n_out == 1 && out) {
      NDArrayHandle result = out[0];
      EXPECT(MXNDArrayWaitToRead(result) == 0, "wait: %s", MXGetLastError());
      EXPECT(MXNDArraySyncCopyToCPU(result, got.data(), 1000) == 0, "copy out: %s", MXGetLastError());
      std::vector<float> shifted(want, want + 1000);
      for (float& v : shifted) v += 1.0f;
      expect_close("after the bias changed", got.data(), shifted.data(), 1000);
      save_or_compare("cached_op_after_bias_change", got.data(), 1000);
      MXNDArrayFree(result);
    }
  }

  // A wrong input count fails with a message.
  if (op) {
    int n_out = 0;
    NDArrayHandle* out = nullptr;
    EXPECT(MXInvokeCachedOp(op, 1, args[0].data(), &n_out, &out) == -1 && MXGetLastError()[0], "1 input accepted");
  }
  EXPECT(op && MXFreeCachedOp(op) == 0, "MXFreeCachedOp: %s", MXGetLastError());
  for (int t = 0; t < kThreads; ++t)
    for (size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i] == "data") MXNDArrayFree(args[t][i]);
  for (uint32_t i = 0; i < n_params; ++i) MXNDArrayFree(loaded[i]);
  SymbolHandle bad = nullptr;
  EXPECT(MXSymbolCreateFromFile((dir + "/no-such-symbol.json").c_str(), &bad) == -1 && MXGetLastError()[0],
         "a missing symbol file");
  EXPECT(MXNDArrayLoad((dir + "/no-such.params").c_str(), &n_params, &loaded, &n_names, &loaded_names) == -1,
         "a missing params file");
  MXSymbolFree(sym);
  free(input);
  free(want);
  return summary("cached_op_threads_test");
}
