// Softmax over the middle axis of (outer, axis, inner): one thread per (outer, inner) lane, three
// passes along the axis (max, sum of exponentials, scale). Simple and exact in float32; a block per
// lane for long last axes is a later optimisation.
#include "backends/cuda/device/device_kernels.h"
#include "backends/cuda/device/launch_grid.cuh"

namespace qv::cuda::launch {
namespace {

__global__ void SoftmaxKernel(const float* x, float* y, int64_t outer, int64_t axis, int64_t inner, float inv_t) {
  const int64_t lanes = outer * inner;
  for (int64_t lane = FirstIndex(); lane < lanes; lane += GridStride()) {
    const int64_t o = lane / inner, i = lane % inner;
    const float* src = x + o * axis * inner + i;
    float* dst = y + o * axis * inner + i;
    float max = src[0];
    for (int64_t a = 1; a < axis; ++a) max = fmaxf(max, src[a * inner]);
    float sum = 0.f;
    for (int64_t a = 0; a < axis; ++a) {
      const float e = expf((src[a * inner] - max) * inv_t);
      dst[a * inner] = e;
      sum += e;
    }
    const float inv_sum = 1.f / sum;
    for (int64_t a = 0; a < axis; ++a) dst[a * inner] *= inv_sum;
  }
}

}  // namespace

void Softmax(const float* x, float* y, int64_t outer, int64_t axis, int64_t inner, float inv_temperature,
             cudaStream_t stream) {
  SoftmaxKernel<<<BlocksFor(outer * inner), kThreads, 0, stream>>>(x, y, outer, axis, inner, inv_temperature);
}

}  // namespace qv::cuda::launch
