// a op b with numpy broadcasting: each thread maps its output index to both inputs' offsets.
#include "backends/cuda/device_kernels.h"
#include "backends/cuda/launch_grid.cuh"

namespace qv::cuda::launch {
namespace {

template <BinaryFn kFn>
__device__ float Combine(float a, float b) {
  if constexpr (kFn == BinaryFn::kAdd) return a + b;
  if constexpr (kFn == BinaryFn::kSub) return a - b;
  if constexpr (kFn == BinaryFn::kMul) return a * b;
  return a / b;
}

template <BinaryFn kFn>
__global__ void BinaryKernel(BroadcastGeometry g, const float* a, const float* b, float* y, int64_t n) {
  for (int64_t i = FirstIndex(); i < n; i += GridStride()) {
    if (g.same_shapes) {
      y[i] = Combine<kFn>(a[i], b[i]);
      continue;
    }
    int64_t rest = i, ia = 0, ib = 0;
    for (int d = g.ndim - 1; d >= 0; --d) {
      const int64_t coord = rest % g.out[d];
      rest /= g.out[d];
      ia += coord * g.a_stride[d];
      ib += coord * g.b_stride[d];
    }
    y[i] = Combine<kFn>(a[ia], b[ib]);
  }
}

template <BinaryFn kFn>
void LaunchBinary(const BroadcastGeometry& g, const float* a, const float* b, float* y, int64_t n,
                  cudaStream_t stream) {
  BinaryKernel<kFn><<<BlocksFor(n), kThreads, 0, stream>>>(g, a, b, y, n);
}

}  // namespace

void Binary(BinaryFn fn, const BroadcastGeometry& g, const float* a, const float* b, float* y, int64_t n,
            cudaStream_t stream) {
  switch (fn) {
    case BinaryFn::kAdd: return LaunchBinary<BinaryFn::kAdd>(g, a, b, y, n, stream);
    case BinaryFn::kSub: return LaunchBinary<BinaryFn::kSub>(g, a, b, y, n, stream);
    case BinaryFn::kMul: return LaunchBinary<BinaryFn::kMul>(g, a, b, y, n, stream);
    case BinaryFn::kDiv: return LaunchBinary<BinaryFn::kDiv>(g, a, b, y, n, stream);
  }
}

}  // namespace qv::cuda::launch
