// 2-D pooling, one thread per output element, with the window rules of the CPU backend's loop
// kernel (MXNet's): a window is first cut at the end of the padded input; average pooling divides by
// that cut window's area with count_include_pad, else by its part inside the input; a window wholly
// outside the input gives -FLT_MAX (max) or 0.
#include <cfloat>

#include "backends/cuda/device_kernels.h"
#include "backends/cuda/launch_grid.cuh"

namespace qv::cuda::launch {
namespace {

__global__ void PoolKernel(PoolGeometry g, const float* x, float* y, int64_t n) {
  for (int64_t idx = FirstIndex(); idx < n; idx += GridStride()) {
    const int64_t j = idx % g.ow, i = (idx / g.ow) % g.oh, plane = idx / (g.ow * g.oh);
    const float* src = x + plane * g.h * g.w;
    int64_t h0 = i * g.sh - g.ph, w0 = j * g.sw - g.pw;
    int64_t h1 = min(h0 + g.kh, g.h + g.ph), w1 = min(w0 + g.kw, g.w + g.pw);
    int64_t count = (h1 - h0) * (w1 - w0);
    h0 = max(h0, int64_t{0});
    w0 = max(w0, int64_t{0});
    h1 = min(h1, g.h);
    w1 = min(w1, g.w);
    const bool is_max = g.type == PoolGeometry::kMax;
    if (h1 <= h0 || w1 <= w0) {
      y[idx] = is_max ? -FLT_MAX : 0.f;
      continue;
    }
    if (!g.count_include_pad) count = (h1 - h0) * (w1 - w0);
    float acc = is_max ? -FLT_MAX : 0.f;
    for (int64_t a = h0; a < h1; ++a)
      for (int64_t b = w0; b < w1; ++b) acc = is_max ? fmaxf(acc, src[a * g.w + b]) : acc + src[a * g.w + b];
    y[idx] = g.type == PoolGeometry::kAvg ? acc / static_cast<float>(count) : acc;
  }
}

}  // namespace

void Pool(const PoolGeometry& g, const float* x, float* y, cudaStream_t stream) {
  const int64_t n = g.planes * g.oh * g.ow;
  PoolKernel<<<BlocksFor(n), kThreads, 0, stream>>>(g, x, y, n);
}

}  // namespace qv::cuda::launch
