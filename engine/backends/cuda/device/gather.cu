// A strided gather over row-major data (transpose, SwapAxis, slice, tile, repeat, broadcasts): output
// element i reads the input at offset + sum_d coord_d(i) * stride[d]; a stride may be negative (a
// reversed slice) or 0 (tile, repeat and broadcasts read an element again).
#include "backends/cuda/device/device_kernels.h"
#include "backends/cuda/device/launch_grid.cuh"

namespace qv::cuda::launch {
namespace {

__global__ void GatherKernel(GatherGeometry g, const float* x, float* y, int64_t n) {
  for (int64_t i = FirstIndex(); i < n; i += GridStride()) {
    int64_t rest = i, at = g.offset;
    for (int d = g.ndim - 1; d >= 0; --d) {
      at += (rest % g.out[d]) * g.stride[d];
      rest /= g.out[d];
    }
    y[i] = x[at];
  }
}

}  // namespace

void Gather(const GatherGeometry& g, const float* x, float* y, int64_t n, cudaStream_t stream) {
  GatherKernel<<<BlocksFor(n), kThreads, 0, stream>>>(g, x, y, n);
}

}  // namespace qv::cuda::launch
