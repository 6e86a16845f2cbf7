// Reductions over axes, one thread per output element, accumulating in double (sum, mean, prod) so
// that long reductions stay close to the exact result.
#include <cfloat>

#include "backends/cuda/device/device_kernels.h"
#include "backends/cuda/device/launch_grid.cuh"

namespace qv::cuda::launch {
namespace {

__device__ int64_t OffsetOf(int64_t i, int ndim, const int64_t* shape, const int64_t* stride) {
  int64_t at = 0;
  for (int d = ndim - 1; d >= 0; --d) {
    at += (i % shape[d]) * stride[d];
    i /= shape[d];
  }
  return at;
}

__global__ void ReduceKernel(ReduceFn fn, ReduceGeometry g, const float* x, float* y, int64_t n) {
  for (int64_t i = FirstIndex(); i < n; i += GridStride()) {
    const float* base = x + OffsetOf(i, g.kept_ndim, g.kept, g.kept_stride);
    double acc = fn == ReduceFn::kProd ? 1.0 : 0.0;
    float extreme = fn == ReduceFn::kMax ? -FLT_MAX : FLT_MAX;
    for (int64_t r = 0; r < g.reduced_count; ++r) {
      const float v = base[OffsetOf(r, g.reduced_ndim, g.reduced, g.reduced_stride)];
      if (fn == ReduceFn::kMax) extreme = fmaxf(extreme, v);
      else if (fn == ReduceFn::kMin) extreme = fminf(extreme, v);
      else if (fn == ReduceFn::kProd) acc *= v;
      else acc += v;
    }
    if (fn == ReduceFn::kMax || fn == ReduceFn::kMin) y[i] = extreme;
    else if (fn == ReduceFn::kMean) y[i] = static_cast<float>(acc / g.reduced_count);
    else y[i] = static_cast<float>(acc);
  }
}

}  // namespace

void Reduce(ReduceFn fn, const ReduceGeometry& g, const float* x, float* y, int64_t n, cudaStream_t stream) {
  ReduceKernel<<<BlocksFor(n), kThreads, 0, stream>>>(fn, g, x, y, n);
}

}  // namespace qv::cuda::launch
