// GroupNorm's device kernel: one block per group (sample, group), which sums its values and their
// squared deviations in double by a shared-memory tree, then writes (x - mean) / sqrt(var + eps) *
// gamma + beta, as MXNet does (ops/group_norm.h).
#include "backends/cuda/device/device_kernels.h"
#include "backends/cuda/device/launch_grid.cuh"

namespace qv::cuda::launch {
namespace {

// The block's sum of `value` (every thread's), returned to all of them.
__device__ double BlockSum(double value, double* shared) {
  shared[threadIdx.x] = value;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) shared[threadIdx.x] += shared[threadIdx.x + half];
    __syncthreads();
  }
  const double total = shared[0];
  __syncthreads();
  return total;
}

__global__ void GroupNormKernel(const float* x, const float* gamma_beta, float* y, int64_t groups, int64_t size,
                                float eps) {
  __shared__ double shared[kThreads];
  const int64_t index = blockIdx.x;
  const float* in = x + index * size;
  float* out = y + index * size;
  double sum = 0;
  for (int64_t i = threadIdx.x; i < size; i += blockDim.x) sum += in[i];
  const float mean = static_cast<float>(BlockSum(sum, shared) / size);
  double squares = 0;
  for (int64_t i = threadIdx.x; i < size; i += blockDim.x) {
    const float d = in[i] - mean;
    squares += static_cast<double>(d) * d;
  }
  const float std_dev = static_cast<float>(sqrt(BlockSum(squares, shared) / size + eps));
  const float gamma = gamma_beta[index % groups], beta = gamma_beta[groups + index % groups];
  for (int64_t i = threadIdx.x; i < size; i += blockDim.x) out[i] = (in[i] - mean) / std_dev * gamma + beta;
}

}  // namespace

void GroupNorm(const float* x, const float* gamma_beta, float* y, int64_t count, int64_t groups, int64_t size,
               float eps, cudaStream_t stream) {
  if (count > 0) GroupNormKernel<<<static_cast<unsigned>(count), kThreads, 0, stream>>>(x, gamma_beta, y, groups, size, eps);
}

}  // namespace qv::cuda::launch
