// The transformer operators' device kernels: each thread computes one lane or one output element
// with the functions the CPU loops call (ops/transformer_math.h), so both backends agree. Plain
// loops, not cuBLAS: correct first, fast later.
#include "backends/cuda/device/device_kernels.h"
#include "backends/cuda/device/launch_grid.cuh"

namespace qv::cuda::launch {
namespace {

__global__ void SoftmaxWithLengthKernel(const float* x, const float* lengths, float* y, int64_t outer, int64_t axis,
                                        int64_t inner, float inv_t) {
  for (int64_t lane = FirstIndex(); lane < outer * inner; lane += GridStride()) {
    const int64_t offset = (lane / inner) * axis * inner + lane % inner;
    SoftmaxLengthLane(x + offset, y + offset, axis, inner, KeptLength(lengths[lane], axis), inv_t);
  }
}

__global__ void LayerNormKernel(const float* x, const float* gamma, const float* beta, float* y, int64_t outer,
                                int64_t axis, int64_t inner, float eps) {
  for (int64_t lane = FirstIndex(); lane < outer * inner; lane += GridStride()) {
    const int64_t offset = (lane / inner) * axis * inner + lane % inner;
    LayerNormLane(x + offset, y + offset, gamma, beta, axis, inner, eps);
  }
}

__global__ void BatchDotKernel(BatchDotGeometry g, const float* a, const float* b, float* y) {
  for (int64_t i = FirstIndex(); i < g.batch * g.m * g.n; i += GridStride()) y[i] = BatchDotElement(g, a, b, i);
}

__global__ void QkKernel(InterleavedGeometry g, const float* qkv, float* y) {
  const int64_t n = g.attention_batches() * g.seq * g.seq;
  for (int64_t i = FirstIndex(); i < n; i += GridStride()) y[i] = InterleavedQkElement(g, qkv, i);
}

__global__ void ValAttKernel(InterleavedGeometry g, const float* qkv, const float* attention, float* y) {
  const int64_t n = g.seq * g.attention_batches() * g.head_dim;
  for (int64_t i = FirstIndex(); i < n; i += GridStride()) y[i] = InterleavedValAttElement(g, qkv, attention, i);
}

__global__ void SequenceMaskKernel(SequenceMaskGeometry g, const float* x, const float* lengths, float* y, int64_t n) {
  for (int64_t i = FirstIndex(); i < n; i += GridStride()) y[i] = SequenceMaskElement(g, x, lengths, i);
}

__global__ void DivideKernel(const float* x, float divisor, float* y, int64_t n) {
  for (int64_t i = FirstIndex(); i < n; i += GridStride()) y[i] = x[i] / divisor;
}

__global__ void TruncateKernel(const float* x, float* y, int64_t n) {
  for (int64_t i = FirstIndex(); i < n; i += GridStride()) y[i] = truncf(x[i]);
}

}  // namespace

void SoftmaxWithLength(const float* x, const float* lengths, float* y, int64_t outer, int64_t axis, int64_t inner,
                       float inv_temperature, cudaStream_t stream) {
  SoftmaxWithLengthKernel<<<BlocksFor(outer * inner), kThreads, 0, stream>>>(x, lengths, y, outer, axis, inner,
                                                                              inv_temperature);
}

void LayerNorm(const float* x, const float* gamma, const float* beta, float* y, int64_t outer, int64_t axis,
               int64_t inner, float eps, cudaStream_t stream) {
  LayerNormKernel<<<BlocksFor(outer * inner), kThreads, 0, stream>>>(x, gamma, beta, y, outer, axis, inner, eps);
}

void BatchDot(const BatchDotGeometry& g, const float* a, const float* b, float* y, cudaStream_t stream) {
  BatchDotKernel<<<BlocksFor(g.batch * g.m * g.n), kThreads, 0, stream>>>(g, a, b, y);
}

void InterleavedQk(const InterleavedGeometry& g, const float* qkv, float* y, cudaStream_t stream) {
  QkKernel<<<BlocksFor(g.attention_batches() * g.seq * g.seq), kThreads, 0, stream>>>(g, qkv, y);
}

void InterleavedValAtt(const InterleavedGeometry& g, const float* qkv, const float* attention, float* y,
                       cudaStream_t stream) {
  ValAttKernel<<<BlocksFor(g.seq * g.attention_batches() * g.head_dim), kThreads, 0, stream>>>(g, qkv, attention, y);
}

void SequenceMask(const SequenceMaskGeometry& g, const float* x, const float* lengths, float* y, int64_t n,
                  cudaStream_t stream) {
  SequenceMaskKernel<<<BlocksFor(n), kThreads, 0, stream>>>(g, x, lengths, y, n);
}

void Divide(const float* x, float divisor, float* y, int64_t n, cudaStream_t stream) {
  DivideKernel<<<BlocksFor(n), kThreads, 0, stream>>>(x, divisor, y, n);
}

void Truncate(const float* x, float* y, int64_t n, cudaStream_t stream) {
  TruncateKernel<<<BlocksFor(n), kThreads, 0, stream>>>(x, y, n);
}

}  // namespace qv::cuda::launch
