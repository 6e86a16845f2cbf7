// MXPredCreateMultiThread as MXNet documents it: one call makes a handle per thread, the handles
// share the parameters, and each thread runs its own handle. 8 threads, several runs each, every
// result held to MXNet's reference output.
//   multi_thread_predict_test FIXTURES_DIR
#include <stdbool.h>
#include <stdint.h>

#include <mxnet/c_predict_api.h>

#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "compat_test_support.h"

namespace {

constexpr int kThreads = 8;
constexpr int kRunsPerThread = 3;
constexpr uint32_t kInput = 3 * 224 * 224;

std::mutex expect_mutex;  // EXPECT's counters are plain ints

void Worker(PredictorHandle p, const float* input, const float* want, int thread) {
  std::vector<float> got(1000);
  for (int run = 0; run < kRunsPerThread; ++run) {
    const bool set = MXPredSetInput(p, "data", input, kInput) == 0;
    const bool ran = set && MXPredForward(p) == 0;
    const bool read = ran && MXPredGetOutput(p, 0, got.data(), 1000) == 0;
    std::lock_guard<std::mutex> lock(expect_mutex);
    EXPECT(read, "thread %d run %d: %s", thread, run, MXGetLastError());
    char what[64];
    snprintf(what, sizeof what, "thread %d run %d", thread, run);
    if (read) expect_close(what, got.data(), want, 1000);
    if (read && thread == 0 && run == 0) save_or_compare("multi_thread_resnet18_v1", got.data(), 1000);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s FIXTURES_DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  long params_size = 0;
  char* json = read_file((dir + "/resnet18_v1-symbol.json").c_str(), nullptr);
  char* params = read_file((dir + "/resnet18_v1-0000.params").c_str(), &params_size);
  float* input = read_floats(argv[1], "resnet18_v1-in-1x3x224x224.f32", kInput);
  float* want = read_floats(argv[1], "resnet18_v1-out-1x3x224x224.f32", 1000);
  if (!json || !params || !input || !want) return summary("multi_thread_predict_test");

  const char* keys[1] = {"data"};
  const uint32_t indptr[2] = {0, 4};
  const uint32_t shape[4] = {1, 3, 224, 224};
  std::vector<PredictorHandle> handles(kThreads, nullptr);
  const int rc = MXPredCreateMultiThread(json, params, static_cast<int>(params_size), 1, 0, 1, keys, indptr, shape,
                                         kThreads, handles.data());
  EXPECT(rc == 0, "MXPredCreateMultiThread: %s", MXGetLastError());
  if (rc == 0) {
    std::vector<std::thread> threads;
    const bool serial = getenv("MXC_SERIAL_THREADS") && std::string(getenv("MXC_SERIAL_THREADS")) == "1";
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back(Worker, handles[t], input, want, t);
      if (serial) threads.back().join();
    }
    for (auto& t : threads)
      if (t.joinable()) t.join();
    for (PredictorHandle h : handles) EXPECT(MXPredFree(h) == 0, "MXPredFree: %s", MXGetLastError());
  }
  free(json);
  free(params);
  free(input);
  free(want);
  return summary("multi_thread_predict_test");
}
