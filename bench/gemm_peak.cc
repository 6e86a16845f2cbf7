// The machine's practical float32 compute rate: oneDNN's own matmul on large square matrices, with
// all threads and with one. A model's images/s times its FLOPs per image, set against this, says how
// close to the roofline it already runs (and so how much batching could still gain).
//
//   build/bench/gemm_peak [THREADS]        (default: the CPUs of this machine)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <dnnl.hpp>
#include <oneapi/dnnl/dnnl_threadpool.hpp>
#include <thread>
#include <vector>

namespace {

// oneDNN's loops on plain threads, started for each loop: the matmuls are large enough not to notice.
class SpawningThreads : public dnnl::threadpool_interop::threadpool_iface {
 public:
  explicit SpawningThreads(int threads) : threads_(threads) {}
  int get_num_threads() const override { return threads_; }
  bool get_in_parallel() const override { return in_parallel_; }
  uint64_t get_flags() const override { return 0; }
  void parallel_for(int n, const std::function<void(int, int)>& task) override {
    std::vector<std::thread> threads;
    for (int t = 0; t < threads_; ++t)
      threads.emplace_back([&, t] {
        in_parallel_ = true;
        for (int i = t; i < n; i += threads_) task(i, n);
        in_parallel_ = false;
      });
    for (auto& thread : threads) thread.join();
  }

 private:
  int threads_;
  static thread_local bool in_parallel_;
};
thread_local bool SpawningThreads::in_parallel_ = false;

// Median GFLOP/s of a few n x n x n matmuls on `threads` threads.
double MatmulGflops(int n, int threads) {
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  SpawningThreads pool(threads);
  dnnl::stream stream = dnnl::threadpool_interop::make_stream(engine, &pool);
  dnnl_threadpool_interop_set_max_concurrency(threads);
  const dnnl::memory::desc md({n, n}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::ab);
  const dnnl::matmul matmul(dnnl::matmul::primitive_desc(engine, md, md, md));
  std::vector<float> a(static_cast<size_t>(n) * n, 1.0f), b(a), c(a.size());
  const dnnl::memory ma(md, engine, a.data()), mb(md, engine, b.data()), mc(md, engine, c.data());
  std::vector<double> seconds;
  for (int i = 0; i < 7; ++i) {
    const auto start = std::chrono::steady_clock::now();
    matmul.execute(stream, {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mb}, {DNNL_ARG_DST, mc}});
    stream.wait();
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(seconds.begin(), seconds.end());
  return 2.0 * n * n * n / seconds[seconds.size() / 2] / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : static_cast<int>(std::thread::hardware_concurrency());
  for (int used : {std::max(threads, 1), 1}) {
    std::printf("{\"threads\": %d, \"gflops_1024\": %.1f, \"gflops_2048\": %.1f}\n", used, MatmulGflops(1024, used),
                MatmulGflops(2048, used));
  }
  return 0;
}
