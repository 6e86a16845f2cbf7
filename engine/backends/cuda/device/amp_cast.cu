// amp_cast's roundings to bfloat16 and float16 values kept in float32, bit for bit as the host's
// RoundToBFloat16 and RoundToFloat16 (ops/amp_cast.cc) compute them.
#include <cuda_fp16.h>

#include "backends/cuda/device/device_kernels.h"
#include "backends/cuda/device/launch_grid.cuh"
#include "ops/bfloat16_bits.h"

namespace qv::cuda::launch {
namespace {

__device__ float RoundToBFloat16(float x) { return __uint_as_float(BFloat16RoundedBits(__float_as_uint(x))); }

__device__ float RoundToFloat16(float x) {
  const uint32_t sign = __float_as_uint(x) & 0x80000000u;
  if (isnan(x)) return __uint_as_float(sign | 0x7fc00000u);  // the host's copysign(quiet NaN, x)
  if (fabsf(x) >= 65520.f) return __uint_as_float(sign | 0x7f800000u);  // overflow: infinity
  // The hardware conversion rounds to nearest, ties to even, keeping float16 subnormals and the sign
  // of zero: the host's rounding exactly.
  return __half2float(__float2half_rn(x));
}

__global__ void RoundKernel(NarrowFloat target, const float* x, float* y, int64_t n) {
  for (int64_t i = FirstIndex(); i < n; i += GridStride())
    y[i] = target == NarrowFloat::kBFloat16 ? RoundToBFloat16(x[i]) : RoundToFloat16(x[i]);
}

}  // namespace

void RoundTo(NarrowFloat target, const float* x, float* y, int64_t n, cudaStream_t stream) {
  RoundKernel<<<BlocksFor(n), kThreads, 0, stream>>>(target, x, y, n);
}

}  // namespace qv::cuda::launch
