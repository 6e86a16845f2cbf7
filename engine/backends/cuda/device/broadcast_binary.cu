// f(a, b) with numpy broadcasting (each thread maps its output index to both inputs' offsets), and
// f(x, c) with a scalar; f is ops/binary_math.h's, as on the CPU.
#include "backends/cuda/device/device_kernels.h"
#include "backends/cuda/device/launch_grid.cuh"

namespace qv::cuda::launch {
namespace {

template <BinaryMath kF>
__global__ void BinaryKernel(BroadcastGeometry g, const float* a, const float* b, float* y, int64_t n) {
  for (int64_t i = FirstIndex(); i < n; i += GridStride()) {
    if (g.same_shapes) {
      y[i] = ApplyBinaryMath(kF, a[i], b[i]);
      continue;
    }
    int64_t rest = i, ia = 0, ib = 0;
    for (int d = g.ndim - 1; d >= 0; --d) {
      const int64_t coord = rest % g.out[d];
      rest /= g.out[d];
      ia += coord * g.a_stride[d];
      ib += coord * g.b_stride[d];
    }
    y[i] = ApplyBinaryMath(kF, a[ia], b[ib]);
  }
}

__global__ void ScalarBinaryKernel(BinaryMath f, float c, bool scalar_first, const float* x, float* y, int64_t n) {
  for (int64_t i = FirstIndex(); i < n; i += GridStride())
    y[i] = scalar_first ? ApplyBinaryMath(f, c, x[i]) : ApplyBinaryMath(f, x[i], c);
}

template <BinaryMath kF>
void LaunchBinary(const BroadcastGeometry& g, const float* a, const float* b, float* y, int64_t n,
                  cudaStream_t stream) {
  BinaryKernel<kF><<<BlocksFor(n), kThreads, 0, stream>>>(g, a, b, y, n);
}

}  // namespace

void Binary(BinaryMath f, const BroadcastGeometry& g, const float* a, const float* b, float* y, int64_t n,
            cudaStream_t stream) {
  using B = BinaryMath;
  switch (f) {  // one kernel per function, so that the function inlines into it
    case B::kAdd: return LaunchBinary<B::kAdd>(g, a, b, y, n, stream);
    case B::kSub: return LaunchBinary<B::kSub>(g, a, b, y, n, stream);
    case B::kMul: return LaunchBinary<B::kMul>(g, a, b, y, n, stream);
    case B::kDiv: return LaunchBinary<B::kDiv>(g, a, b, y, n, stream);
    case B::kMaximum: return LaunchBinary<B::kMaximum>(g, a, b, y, n, stream);
    case B::kMinimum: return LaunchBinary<B::kMinimum>(g, a, b, y, n, stream);
    case B::kPower: return LaunchBinary<B::kPower>(g, a, b, y, n, stream);
    case B::kMod: return LaunchBinary<B::kMod>(g, a, b, y, n, stream);
    case B::kEqual: return LaunchBinary<B::kEqual>(g, a, b, y, n, stream);
    case B::kNotEqual: return LaunchBinary<B::kNotEqual>(g, a, b, y, n, stream);
    case B::kGreater: return LaunchBinary<B::kGreater>(g, a, b, y, n, stream);
    case B::kGreaterEqual: return LaunchBinary<B::kGreaterEqual>(g, a, b, y, n, stream);
    case B::kLesser: return LaunchBinary<B::kLesser>(g, a, b, y, n, stream);
    case B::kLesserEqual: return LaunchBinary<B::kLesserEqual>(g, a, b, y, n, stream);
  }
}

void ScalarBinary(BinaryMath f, float c, bool scalar_first, const float* x, float* y, int64_t n, cudaStream_t stream) {
  ScalarBinaryKernel<<<BlocksFor(n), kThreads, 0, stream>>>(f, c, scalar_first, x, y, n);
}

}  // namespace qv::cuda::launch
