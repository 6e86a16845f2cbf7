// 2-D and 3-D pooling, one thread per output element, with the window rules of the CPU backend's loop
// kernel (MXNet's): a window is first cut at the end of the padded input; average pooling divides by
// that cut window's volume with count_include_pad, else by its part inside the input; a window wholly
// outside the input gives -FLT_MAX (max) or 0. 2-D pooling is 3-D pooling of depth 1.
#include <cfloat>

#include "backends/cuda/device/device_kernels.h"
#include "backends/cuda/device/launch_grid.cuh"

namespace qv::cuda::launch {
namespace {

__device__ float Window(const PoolGeometry& g, const float* src, int64_t at) {
  int64_t lo[3], hi[3], count = 1, inside = 1;
  const bool is_max = g.type == PoolGeometry::kMax;
  for (int a = 2; a >= 0; --a) {
    const int64_t o = at % g.out[a];
    at /= g.out[a];
    lo[a] = o * g.stride[a] - g.pad[a];
    hi[a] = min(lo[a] + g.kernel[a], g.in[a] + g.pad[a]);
    count *= hi[a] - lo[a];
    lo[a] = max(lo[a], int64_t{0});
    hi[a] = min(hi[a], g.in[a]);
    if (hi[a] <= lo[a]) return is_max ? -FLT_MAX : 0.f;
    inside *= hi[a] - lo[a];
  }
  if (!g.count_include_pad) count = inside;
  float acc = is_max ? -FLT_MAX : 0.f;
  for (int64_t d = lo[0]; d < hi[0]; ++d)
    for (int64_t h = lo[1]; h < hi[1]; ++h)
      for (int64_t w = lo[2]; w < hi[2]; ++w) {
        const float v = src[(d * g.in[1] + h) * g.in[2] + w];
        acc = is_max ? fmaxf(acc, v) : acc + v;
      }
  return g.type == PoolGeometry::kAvg ? acc / static_cast<float>(count) : acc;
}

__global__ void PoolKernel(PoolGeometry g, const float* x, float* y, int64_t n) {
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2], out_plane = g.out[0] * g.out[1] * g.out[2];
  for (int64_t idx = FirstIndex(); idx < n; idx += GridStride())
    y[idx] = Window(g, x + idx / out_plane * in_plane, idx % out_plane);
}

}  // namespace

void Pool(const PoolGeometry& g, const float* x, float* y, cudaStream_t stream) {
  const int64_t n = g.planes * g.out[0] * g.out[1] * g.out[2];
  PoolKernel<<<BlocksFor(n), kThreads, 0, stream>>>(g, x, y, n);
}

}  // namespace qv::cuda::launch
