// Pad: each output element finds its source along every axis (ops/pad.h's PadParams::Source, the same
// rule: constant outside, edge clamped, reflect mirrored once) or takes the constant.
#include "backends/cuda/device/device_kernels.h"
#include "backends/cuda/device/launch_grid.cuh"

namespace qv::cuda::launch {
namespace {

__device__ int64_t Source(const PadGeometry& g, int d, int64_t i) {
  const int64_t at = i - g.before[d], size = g.in[d];
  if (at >= 0 && at < size) return at;
  if (g.mode == PadGeometry::kConstant) return -1;
  if (g.mode == PadGeometry::kEdge) return at < 0 ? 0 : size - 1;
  return at < 0 ? -at : 2 * (size - 1) - at;
}

__global__ void PadKernel(PadGeometry g, const float* x, float* y, int64_t n) {
  for (int64_t i = FirstIndex(); i < n; i += GridStride()) {
    int64_t rest = i, at = 0, stride = 1;
    bool constant = false;
    for (int d = g.ndim - 1; d >= 0; --d) {
      const int64_t from = Source(g, d, rest % g.out[d]);
      rest /= g.out[d];
      constant = constant || from < 0;
      at += from * stride;
      stride *= g.in[d];
    }
    y[i] = constant ? g.value : x[at];
  }
}

}  // namespace

void Pad(const PadGeometry& g, const float* x, float* y, int64_t n, cudaStream_t stream) {
  PadKernel<<<BlocksFor(n), kThreads, 0, stream>>>(g, x, y, n);
}

}  // namespace qv::cuda::launch
