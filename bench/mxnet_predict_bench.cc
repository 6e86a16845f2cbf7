// One benchmark binary for both libmxnet.so files: MXNet's predict API, handles from
// MXPredCreateMultiThread (one per client thread), each thread running SetInput, Forward and GetOutput
// in a loop. bench/compare_mxnet_dropin.sh builds it against MXNet's headers and runs the same
// binary on MXNet's library and on Quiver's drop-in.
//
//   mxnet_predict_bench PREFIX THREADS ITERS WARMUP   (input "data" 1x3x224x224)
//
// Prints one JSON line: threads, iters per thread, p50_ms (median latency of one
// SetInput+Forward+GetOutput), throughput_per_s (all threads' runs over the wall time).
#include <stdbool.h>
#include <stdint.h>

#include <mxnet/c_predict_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

namespace {

std::vector<char> ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(1);
  }
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

void Check(int rc, const char* what) {
  if (rc != 0) {
    std::fprintf(stderr, "%s: %s\n", what, MXGetLastError());
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s PREFIX THREADS ITERS WARMUP\n", argv[0]);
    return 2;
  }
  const std::string prefix = argv[1];
  const int threads = std::atoi(argv[2]), iters = std::atoi(argv[3]), warmup = std::atoi(argv[4]);
  if (threads < 1 || iters < 1 || warmup < 0) {
    std::fprintf(stderr, "THREADS and ITERS must be at least 1, WARMUP not negative\n");
    return 2;
  }
  const std::vector<char> json_bytes = ReadBytes(prefix + "-symbol.json");
  const std::string json(json_bytes.begin(), json_bytes.end());
  const std::vector<char> params = ReadBytes(prefix + "-0000.params");
  const char* keys[1] = {"data"};
  const uint32_t indptr[2] = {0, 4};
  const uint32_t shape[4] = {1, 3, 224, 224};
  std::vector<PredictorHandle> handles(threads);
  Check(MXPredCreateMultiThread(json.c_str(), params.data(), static_cast<int>(params.size()), 1, 0, 1, keys, indptr,
                                shape, threads, handles.data()),
        "MXPredCreateMultiThread");

  const uint32_t input_size = 3 * 224 * 224;
  std::vector<std::vector<double>> latencies(threads);
  auto run = [&](int t, int count, bool timed) {
    std::vector<float> input(input_size, 0.5f), output;
    for (int i = 0; i < count; ++i) {
      const auto start = std::chrono::steady_clock::now();
      Check(MXPredSetInput(handles[t], "data", input.data(), input_size), "MXPredSetInput");
      Check(MXPredForward(handles[t]), "MXPredForward");
      // MXNet's multi-thread handles know their output shape only once they ran.
      uint32_t* oshape = nullptr;
      uint32_t ndim = 0;
      Check(MXPredGetOutputShape(handles[t], 0, &oshape, &ndim), "MXPredGetOutputShape");
      uint32_t out_size = 1;
      for (uint32_t d = 0; d < ndim; ++d) out_size *= oshape[d];
      output.resize(out_size);
      Check(MXPredGetOutput(handles[t], 0, output.data(), static_cast<uint32_t>(output.size())), "MXPredGetOutput");
      const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start;
      if (timed) latencies[t].push_back(ms.count());
    }
  };
  // Warm-up runs one thread after another: MXNet's handles are not safe to run at once for the first
  // time (its weights are reordered in place), and neither library is timed on first-run work.
  for (int t = 0; t < threads; ++t) run(t, std::max(1, warmup), false);

  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(run, t, iters, true);
  for (auto& th : pool) th.join();
  const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - start;

  std::vector<double> all;
  for (const auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  std::printf("{\"threads\": %d, \"iters\": %d, \"p50_ms\": %.3f, \"throughput_per_s\": %.3f}\n", threads, iters,
              all[all.size() / 2], static_cast<double>(all.size()) / wall.count());
  for (PredictorHandle h : handles) MXPredFree(h);
  return 0;
}
