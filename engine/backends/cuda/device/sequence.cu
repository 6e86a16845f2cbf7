// Embedding, SequenceLast and the RNN's gates: one thread per output element.
#include "backends/cuda/device/device_kernels.h"
#include "backends/cuda/device/launch_grid.cuh"

namespace qv::cuda::launch {
namespace {

__global__ void EmbeddingKernel(const float* ids, const float* weight, float* y, int64_t n, int64_t input_dim,
                                int64_t dim) {
  for (int64_t i = FirstIndex(); i < n; i += GridStride()) {
    const float id = ids[i / dim];
    int64_t row = 0;  // negative ids and NaN
    if (id >= static_cast<float>(input_dim)) row = input_dim - 1;
    else if (id > 0) row = static_cast<int64_t>(id);
    y[i] = weight[row * dim + i % dim];
  }
}

__global__ void SequenceLastKernel(const float* x, const float* lengths, float* y, int64_t steps, int64_t batch,
                                   int64_t row, bool batch_major) {
  for (int64_t i = FirstIndex(); i < batch * row; i += GridStride()) {
    const int64_t n = i / row;
    int64_t t = steps - 1;
    if (lengths) {
      const float length = lengths[n];
      t = !(length >= 1) ? 0 : length >= static_cast<float>(steps) ? steps - 1 : static_cast<int64_t>(length) - 1;
    }
    y[i] = x[(batch_major ? n * steps + t : t * batch + n) * row + i % row];
  }
}

__device__ float Sigmoid(float v) { return 1.f / (1.f + expf(-v)); }

__global__ void RnnStepKernel(RnnCell cell, const float* x, int64_t x_stride, const float* bx, const float* r,
                              const float* bh, float* h, float* c, float* y, int64_t y_stride, int64_t batch,
                              int64_t hidden) {
  const int gates = cell == RnnCell::kLstm ? 4 : cell == RnnCell::kGru ? 3 : 1;
  for (int64_t i = FirstIndex(); i < batch * hidden; i += GridStride()) {
    const int64_t n = i / hidden, j = i % hidden, H = hidden;
    const float* xn = x + n * x_stride;
    const float* rn = r + n * gates * H;
    auto in = [&](int g) { return xn[g * H + j] + bx[g * H + j]; };
    auto rec = [&](int g) { return rn[g * H + j] + bh[g * H + j]; };
    float out;
    if (cell == RnnCell::kLstm) {
      const float ig = Sigmoid(in(0) + rec(0)), fg = Sigmoid(in(1) + rec(1));
      const float gg = tanhf(in(2) + rec(2)), og = Sigmoid(in(3) + rec(3));
      c[i] = fg * c[i] + ig * gg;
      out = og * tanhf(c[i]);
    } else if (cell == RnnCell::kGru) {
      const float reset = Sigmoid(in(0) + rec(0)), update = Sigmoid(in(1) + rec(1));
      const float cand = tanhf(in(2) + reset * rec(2));
      out = (1.f - update) * cand + update * h[i];
    } else {
      const float v = in(0) + rec(0);
      out = cell == RnnCell::kRelu ? fmaxf(v, 0.f) : tanhf(v);
    }
    h[i] = out;
    y[n * y_stride + j] = out;
  }
}

}  // namespace

void Embedding(const float* ids, const float* weight, float* y, int64_t count, int64_t input_dim, int64_t dim,
               cudaStream_t stream) {
  const int64_t n = count * dim;
  EmbeddingKernel<<<BlocksFor(n), kThreads, 0, stream>>>(ids, weight, y, n, input_dim, dim);
}

void SequenceLast(const float* x, const float* lengths, float* y, int64_t steps, int64_t batch, int64_t row,
                  bool batch_major, cudaStream_t stream) {
  SequenceLastKernel<<<BlocksFor(batch * row), kThreads, 0, stream>>>(x, lengths, y, steps, batch, row, batch_major);
}

void RnnStep(RnnCell cell, const float* x, int64_t x_stride, const float* bx, const float* r, const float* bh, float* h,
             float* c, float* y, int64_t y_stride, int64_t batch, int64_t hidden, cudaStream_t stream) {
  RnnStepKernel<<<BlocksFor(batch * hidden), kThreads, 0, stream>>>(cell, x, x_stride, bx, r, bh, h, c, y, y_stride,
                                                                    batch, hidden);
}

}  // namespace qv::cuda::launch
