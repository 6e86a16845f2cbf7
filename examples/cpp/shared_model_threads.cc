// Several threads share ONE loaded model: a single cached op created with thread_safe = 1, its
// parameters in memory once. Each thread runs its own predictions on its own input; at the end every
// result is compared, bit for bit, with the same input run alone, one prediction at a time.
//
//   shared_model_threads <model_prefix> <epoch> <input.f32> <C,H,W> [threads=4] [iterations=8]
//
// input.f32 holds one or more raw float32 images of shape (C,H,W). Thread t predicts image
// t % images; threads beyond the number of images scale it, so that no two threads share an input
// and a result handed to the wrong thread would show. Written on the C++ API (quiver/quiver.hpp),
// whose handles free themselves and whose failures arrive as quiver::Error.
#include <quiver/quiver.hpp>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <future>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::vector<float> ReadFloats(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw std::runtime_error("cannot open " + path);
  const auto bytes = static_cast<size_t>(in.tellg());
  if (bytes % sizeof(float) != 0) throw std::runtime_error(path + " is not raw float32 data");
  std::vector<float> data(bytes / sizeof(float));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(bytes));
  if (!in) throw std::runtime_error("cannot read " + path);
  return data;
}

// One prediction: submit, wait, and copy out the first output.
std::vector<float> Predict(const quiver::CachedOp& op, const quiver::NDArray& input) {
  return op.Invoke({&input})[0].ToVector<float>();
}

bool BitIdentical(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

struct Worker {
  std::vector<float> data;                  // this thread's own input
  std::vector<std::vector<float>> results;  // one per iteration
  std::vector<float> reference;             // the same input predicted alone
  double seconds = 0;
  std::string error;
};

int Run(int argc, char** argv) {
  if (argc < 5 || argc > 7) {
    std::fprintf(stderr, "usage: %s <model_prefix> <epoch> <input.f32> <C,H,W> [threads=4] [iterations=8]\n",
                 argv[0]);
    return 2;
  }
  const std::string prefix = argv[1];
  const int epoch = std::stoi(argv[2]);
  int c = 0, h = 0, w = 0;
  if (std::sscanf(argv[4], "%d,%d,%d", &c, &h, &w) != 3 || c < 1 || h < 1 || w < 1)
    throw std::runtime_error(std::string("<C,H,W> wants three positive integers, got '") + argv[4] + "'");
  const int n_threads = argc > 5 ? std::stoi(argv[5]) : 4;
  const int iterations = argc > 6 ? std::stoi(argv[6]) : 8;
  if (n_threads < 1 || iterations < 1) throw std::runtime_error("threads and iterations must be at least 1");

  const std::vector<float> images = ReadFloats(argv[3]);
  const size_t image_size = static_cast<size_t>(c) * h * w;
  const size_t n_images = images.size() / image_size;
  if (n_images == 0 || images.size() % image_size != 0)
    throw std::runtime_error(std::string(argv[3]) + " does not hold whole " + argv[4] + " images");
  const std::vector<int64_t> shape = {1, c, h, w};

  const auto t_load = Clock::now();
  // One cached op that any thread may invoke (thread-safe, the default).
  const quiver::CachedOp op = quiver::CachedOp::Load(prefix, epoch, {{"device", "cpu"}});
  std::printf("model %s (epoch %d) loaded and compiled in %.0f ms: one thread-safe cached op shared by %d threads\n",
              prefix.c_str(), epoch, 1e3 * Seconds(Clock::now() - t_load), n_threads);

  std::vector<Worker> workers(n_threads);
  for (int t = 0; t < n_threads; ++t) {
    const float* image = images.data() + (t % n_images) * image_size;
    const float scale = 1.0f + 0.25f * static_cast<float>(t / n_images);
    workers[t].data.assign(image, image + image_size);
    for (float& x : workers[t].data) x *= scale;
  }

  // The sequential run: one prediction at a time, after one that compiles the plan for this shape.
  Predict(op, quiver::NDArray::FromVector(workers[0].data, shape));
  const auto t_seq = Clock::now();
  for (Worker& wk : workers) wk.reference = Predict(op, quiver::NDArray::FromVector(wk.data, shape));
  const double seq_s = Seconds(Clock::now() - t_seq);
  std::printf("sequential reference: %d predictions in %.1f ms (%.2f predictions/s)\n", n_threads, 1e3 * seq_s,
              n_threads / seq_s);

  // The concurrent run: all threads start together and invoke the same op.
  std::promise<void> start;
  std::shared_future<void> go = start.get_future().share();
  std::vector<std::thread> threads;
  for (Worker& wk : workers) {
    threads.emplace_back([&wk, &op, &shape, go, iterations] {
      try {
        const quiver::NDArray input = quiver::NDArray::FromVector(wk.data, shape);
        go.wait();
        const auto t0 = Clock::now();
        for (int i = 0; i < iterations; ++i) wk.results.push_back(Predict(op, input));
        wk.seconds = Seconds(Clock::now() - t0);
      } catch (const std::exception& e) {
        wk.error = e.what();
      }
    });
  }
  const auto t_all = Clock::now();
  start.set_value();
  for (auto& th : threads) th.join();
  const double all_s = Seconds(Clock::now() - t_all);

  int mismatches = 0, failures = 0;
  for (int t = 0; t < n_threads; ++t) {
    const Worker& wk = workers[t];
    if (!wk.error.empty()) {
      std::printf("thread %d: FAILED: %s\n", t, wk.error.c_str());
      ++failures;
      continue;
    }
    int same = 0;
    for (const auto& r : wk.results) same += BitIdentical(r, wk.reference);
    mismatches += iterations - same;
    std::printf("thread %d: %d predictions in %7.1f ms = %6.2f/s, %d/%d bit-identical to the sequential run\n", t,
                iterations, 1e3 * wk.seconds, iterations / wk.seconds, same, iterations);
  }
  const int total = n_threads * iterations;
  std::printf("total:    %d predictions in %7.1f ms = %6.2f/s (sequential: %.2f/s)\n", total, 1e3 * all_s,
              total / all_s, n_threads / seq_s);
  if (failures > 0 || mismatches > 0) {
    std::printf("FAILED: %d thread(s) failed, %d result(s) differ from the sequential run\n", failures, mismatches);
    return 1;
  }
  std::printf("OK: every thread's results equal the sequential run bit for bit\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "shared_model_threads: %s\n", e.what());
    return 1;
  }
}
