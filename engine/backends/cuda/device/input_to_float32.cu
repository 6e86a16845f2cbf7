// _input_to_float32's conversion: one element per thread, the host's static_cast<float> rounding.
#include "backends/cuda/device/device_kernels.h"
#include "backends/cuda/device/launch_grid.cuh"

namespace qv::cuda::launch {
namespace {

template <typename T>
__global__ void ToFloat32Kernel(const T* x, float* y, int64_t n) {
  for (int64_t i = FirstIndex(); i < n; i += GridStride()) y[i] = static_cast<float>(x[i]);
}

template <typename T>
void Launch(const void* x, float* y, int64_t n, cudaStream_t stream) {
  ToFloat32Kernel<<<BlocksFor(n), kThreads, 0, stream>>>(static_cast<const T*>(x), y, n);
}

}  // namespace

void ToFloat32(InputElement from, const void* x, float* y, int64_t n, cudaStream_t stream) {
  switch (from) {
    case InputElement::kFloat64: return Launch<double>(x, y, n, stream);
    case InputElement::kUInt8: return Launch<uint8_t>(x, y, n, stream);
    case InputElement::kInt8: return Launch<int8_t>(x, y, n, stream);
    case InputElement::kInt32: return Launch<int32_t>(x, y, n, stream);
    case InputElement::kInt64: return Launch<int64_t>(x, y, n, stream);
  }
}

}  // namespace qv::cuda::launch
