// Element-wise kernels: one thread per element, a grid-stride loop so any size fits one launch.
#include "backends/cuda/device/device_kernels.h"
#include "backends/cuda/device/launch_grid.cuh"

namespace qv::cuda::launch {
namespace {

__device__ float Apply(UnaryFn fn, float x, float a, float b) {
  switch (fn) {
    case UnaryFn::kRelu: return x > 0.f ? x : 0.f;
    case UnaryFn::kSigmoid: return 1.f / (1.f + expf(-x));
    case UnaryFn::kTanh: return tanhf(x);
    case UnaryFn::kSoftRelu: return x > 20.f ? x : log1pf(expf(x));  // log(1 + e^x) without overflow
    case UnaryFn::kSoftSign: return x / (1.f + fabsf(x));
    case UnaryFn::kClip: return fminf(fmaxf(x, a), b);
    case UnaryFn::kLinear: return a * x + b;
    case UnaryFn::kLeaky: return x > 0.f ? x : a * x;
    case UnaryFn::kElu: return x > 0.f ? x : a * expm1f(x);
    case UnaryFn::kSelu: {
      constexpr float kAlpha = 1.6732632423543772848f, kLambda = 1.0507009873554804934f;
      return kLambda * (x > 0.f ? x : kAlpha * expm1f(x));
    }
    case UnaryFn::kGelu: return 0.5f * x * (1.f + erff(x * 0.70710678118654752f));
  }
  return x;
}

__global__ void UnaryKernel(UnaryFn fn, float a, float b, const float* x, float* y, int64_t n) {
  for (int64_t i = FirstIndex(); i < n; i += GridStride())
    y[i] = Apply(fn, x[i], a, b);
}

__global__ void MathKernel(UnaryMath f, const float* x, float* y, int64_t n) {
  for (int64_t i = FirstIndex(); i < n; i += GridStride()) y[i] = ApplyUnaryMath(f, x[i]);
}

__global__ void ChannelAffineKernel(const float* x, const float* scale, const float* shift, float* y, int64_t n,
                                    int64_t channels, int64_t inner, bool relu) {
  for (int64_t i = FirstIndex(); i < n; i += GridStride()) {
    const int64_t c = (i / inner) % channels;
    const float v = x[i] * scale[c] + shift[c];
    y[i] = relu && v < 0.f ? 0.f : v;
  }
}

__global__ void PReluKernel(const float* x, const float* gamma, float* y, int64_t n, int64_t channels, int64_t inner,
                            bool shared) {
  for (int64_t i = FirstIndex(); i < n; i += GridStride()) {
    const float g = gamma[shared ? 0 : (i / inner) % channels];
    y[i] = x[i] > 0.f ? x[i] : g * x[i];
  }
}

__global__ void WhereKernel(const float* cond, const float* x, const float* y, float* out, int64_t n, int64_t row) {
  for (int64_t i = FirstIndex(); i < n; i += GridStride())
    out[i] = cond[i / row] != 0.f ? x[i] : y[i];
}

}  // namespace

void Unary(UnaryFn fn, float a, float b, const float* x, float* y, int64_t n, cudaStream_t stream) {
  UnaryKernel<<<BlocksFor(n), kThreads, 0, stream>>>(fn, a, b, x, y, n);
}

void Math(UnaryMath f, const float* x, float* y, int64_t n, cudaStream_t stream) {
  MathKernel<<<BlocksFor(n), kThreads, 0, stream>>>(f, x, y, n);
}

void ChannelAffine(const float* x, const float* scale, const float* shift, float* y, int64_t n, int64_t channels,
                   int64_t inner, bool relu, cudaStream_t stream) {
  ChannelAffineKernel<<<BlocksFor(n), kThreads, 0, stream>>>(x, scale, shift, y, n, channels, inner, relu);
}

void PRelu(const float* x, const float* gamma, float* y, int64_t n, int64_t channels, int64_t inner, bool shared,
           cudaStream_t stream) {
  PReluKernel<<<BlocksFor(n), kThreads, 0, stream>>>(x, gamma, y, n, channels, inner, shared);
}

void Where(const float* cond, const float* x, const float* y, float* out, int64_t n, int64_t row, cudaStream_t stream) {
  WhereKernel<<<BlocksFor(n), kThreads, 0, stream>>>(cond, x, y, out, n, row);
}

}  // namespace qv::cuda::launch
