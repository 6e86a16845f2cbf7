// The machine's practical float32 compute rate: oneDNN's own matmul on large square matrices, with
// all threads and with one. A model's images/s times its FLOPs per image, set against this, says how
// close to the roofline it already runs (and so how much batching could still gain).
//
//   build/bench/gemm_peak        (OMP_NUM_THREADS sets the threads of the first line)
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <dnnl.hpp>
#include <vector>

namespace {

// Median GFLOP/s of a few n x n x n matmuls.
double MatmulGflops(int n) {
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
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

int main() {
  const int threads = omp_get_max_threads();
  for (int used : {threads, 1}) {
    omp_set_num_threads(used);
    std::printf("{\"threads\": %d, \"gflops_1024\": %.1f, \"gflops_2048\": %.1f}\n", used, MatmulGflops(1024),
                MatmulGflops(2048));
  }
  return 0;
}
