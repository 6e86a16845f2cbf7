// L2Normalization over (outer, axis, inner) lanes with the CPU kernel's arithmetic: the squares summed
// in double (each product and sum rounded on its own, never fused), 1 / sqrt(sum + eps) in double,
// rounded once to float and multiplied in. Strided lanes (inner > 1) take a thread each, reading
// neighbouring lanes side by side and summing in the CPU's order; contiguous long lanes take a block
// each, whose partial sums add up in another order (a last-bit difference at most).
#include "backends/cuda/device/device_kernels.h"
#include "backends/cuda/device/launch_grid.cuh"

namespace qv::cuda::launch {
namespace {

__device__ float InverseNorm(double sum, float eps) {
  return static_cast<float>(__ddiv_rn(1.0, sqrt(__dadd_rn(sum, static_cast<double>(eps)))));
}

__global__ void L2NormLanesKernel(const float* x, float* y, int64_t outer, int64_t axis, int64_t inner, float eps) {
  const int64_t lanes = outer * inner;
  for (int64_t lane = FirstIndex(); lane < lanes; lane += GridStride()) {
    const int64_t base = (lane / inner) * axis * inner + lane % inner;
    double sum = 0.0;
    for (int64_t a = 0; a < axis; ++a) {
      const double v = x[base + a * inner];
      sum = __dadd_rn(sum, __dmul_rn(v, v));
    }
    const float inv = InverseNorm(sum, eps);
    for (int64_t a = 0; a < axis; ++a) y[base + a * inner] = x[base + a * inner] * inv;
  }
}

// One block per contiguous lane of `axis` floats.
__global__ void __launch_bounds__(kThreads) L2NormRowsKernel(const float* x, float* y, int64_t axis, float eps) {
  __shared__ double partial[kThreads];
  __shared__ float inv;
  const float* src = x + blockIdx.x * axis;
  float* dst = y + blockIdx.x * axis;
  double sum = 0.0;
  for (int64_t a = threadIdx.x; a < axis; a += blockDim.x) {
    const double v = src[a];
    sum = __dadd_rn(sum, __dmul_rn(v, v));
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (static_cast<int>(threadIdx.x) < half)
      partial[threadIdx.x] = __dadd_rn(partial[threadIdx.x], partial[threadIdx.x + half]);
    __syncthreads();
  }
  if (threadIdx.x == 0) inv = InverseNorm(partial[0], eps);
  __syncthreads();
  for (int64_t a = threadIdx.x; a < axis; a += blockDim.x) dst[a] = src[a] * inv;
}

}  // namespace

void L2Normalize(const float* x, float* y, int64_t outer, int64_t axis, int64_t inner, float eps, cudaStream_t stream) {
  // A block per lane pays when a lane is contiguous and long enough to share out.
  if (inner == 1 && axis >= kThreads && outer <= int64_t{0x7fffffff}) {
    L2NormRowsKernel<<<static_cast<unsigned>(outer), kThreads, 0, stream>>>(x, y, axis, eps);
    return;
  }
  L2NormLanesKernel<<<BlocksFor(outer * inner), kThreads, 0, stream>>>(x, y, outer, axis, inner, eps);
}

}  // namespace qv::cuda::launch
