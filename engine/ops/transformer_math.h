// The per-row and per-element arithmetic of the transformer operators (LayerNorm, batch_dot, the
// interleaved self-attention products, SequenceMask, softmax with lengths): plain functions that nvcc
// compiles too, so that the CPU loops and the CUDA kernels compute them with one definition.
#pragma once

#include <math.h>

#include <cstdint>

#include "ops/host_device.h"

namespace qv {

// LayerNorm of one lane: `n` values `stride` apart, normalised by their mean and (biased) variance,
// then scaled by gamma and shifted by beta; statistics accumulate in double.
QV_HOST_DEVICE inline void LayerNormLane(const float* x, float* y, const float* gamma, const float* beta, int64_t n,
                                         int64_t stride, float eps) {
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += x[i * stride];
  const float mean = static_cast<float>(sum / n);
  double squares = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float d = x[i * stride] - mean;
    squares += static_cast<double>(d) * d;
  }
  const float inv_std = static_cast<float>(1.0 / sqrt(squares / n + eps));
  for (int64_t i = 0; i < n; ++i) y[i * stride] = (x[i * stride] - mean) * inv_std * gamma[i] + beta[i];
}

// batch_dot's geometry: `batch` products of (m x k) by (k x n), each operand possibly stored transposed.
struct BatchDotGeometry {
  int64_t batch = 1, m = 1, n = 1, k = 1;
  bool transpose_a = false, transpose_b = false;
};

// Element (b, i, j) of batch_dot(a, b).
QV_HOST_DEVICE inline float BatchDotElement(const BatchDotGeometry& g, const float* a, const float* b, int64_t at) {
  const int64_t j = at % g.n, i = (at / g.n) % g.m, batch = at / (g.n * g.m);
  const float* pa = a + batch * g.m * g.k;
  const float* pb = b + batch * g.k * g.n;
  float sum = 0.f;
  for (int64_t p = 0; p < g.k; ++p) {
    const float av = g.transpose_a ? pa[p * g.m + i] : pa[i * g.k + p];
    const float bv = g.transpose_b ? pb[j * g.k + p] : pb[p * g.n + j];
    sum += av * bv;
  }
  return sum;
}

// The interleaved self-attention layout of MXNet's _contrib_interleaved_matmul_selfatt_*: the
// projections (seq, batch, heads * 3 * head_dim) hold, per head, its query, key and value (head_dim
// each) side by side. Attention batch `ab` = batch index * heads + head.
struct InterleavedGeometry {
  int64_t seq = 1, batch = 1, heads = 1, head_dim = 1;
  float scale = 1.f;  // 1 / sqrt(head_dim), as MXNet rounds it
  QV_HOST_DEVICE int64_t attention_batches() const { return batch * heads; }
  // Where part `part` (0 query, 1 key, 2 value) of sequence position s for attention batch ab starts.
  QV_HOST_DEVICE int64_t Offset(int64_t s, int64_t ab, int part) const {
    return s * batch * heads * 3 * head_dim + ab * 3 * head_dim + part * head_dim;
  }
};

// _contrib_interleaved_matmul_selfatt_qk, output (batch * heads, seq, seq) element `at`:
// scale * query(s) . key(t).
QV_HOST_DEVICE inline float InterleavedQkElement(const InterleavedGeometry& g, const float* qkv, int64_t at) {
  const int64_t t = at % g.seq, s = (at / g.seq) % g.seq, ab = at / (g.seq * g.seq);
  const float* q = qkv + g.Offset(s, ab, 0);
  const float* k = qkv + g.Offset(t, ab, 1);
  float sum = 0.f;
  for (int64_t d = 0; d < g.head_dim; ++d) sum += k[d] * q[d];
  return g.scale * sum;
}

// _contrib_interleaved_matmul_selfatt_valatt, output (seq, batch, heads * head_dim) element `at`:
// sum over t of attention(ab, s, t) * value(t)[d].
QV_HOST_DEVICE inline float InterleavedValAttElement(const InterleavedGeometry& g, const float* qkv,
                                                     const float* attention, int64_t at) {
  const int64_t d = at % g.head_dim, ab = (at / g.head_dim) % g.attention_batches(),
                s = at / (g.head_dim * g.attention_batches());
  const float* row = attention + (ab * g.seq + s) * g.seq;
  float sum = 0.f;
  for (int64_t t = 0; t < g.seq; ++t) sum += row[t] * qkv[g.Offset(t, ab, 2) + d];
  return sum;
}

// How many leading positions a length keeps, as MXNet reads a float length (truncated towards zero),
// bounded to 0..size.
QV_HOST_DEVICE inline int64_t KeptLength(float length, int64_t size) {
  if (!(length > 0.f)) return 0;
  return length >= static_cast<float>(size) ? size : static_cast<int64_t>(length);
}

// softmax with use_length over one lane: the first `length` values `stride` apart are normalised,
// the rest written as 0.
QV_HOST_DEVICE inline void SoftmaxLengthLane(const float* x, float* y, int64_t n, int64_t stride, int64_t length,
                                             float inv_temperature) {
  float max = length > 0 ? x[0] : 0.f;
  for (int64_t a = 1; a < length; ++a) max = fmaxf(max, x[a * stride]);
  double sum = 0;
  for (int64_t a = 0; a < length; ++a) {
    const float e = expf((x[a * stride] - max) * inv_temperature);
    y[a * stride] = e;
    sum += e;
  }
  const float inv_sum = static_cast<float>(1.0 / sum);
  for (int64_t a = 0; a < length; ++a) y[a * stride] *= inv_sum;
  for (int64_t a = length; a < n; ++a) y[a * stride] = 0.f;
}

// SequenceMask's geometry: data (seq, batch, rest) for axis 0, (batch, seq, rest) for axis 1.
struct SequenceMaskGeometry {
  int64_t seq = 1, batch = 1, rest = 1;
  int axis = 0;
  float value = 0.f;
};

// Whether SequenceMask keeps row `outer` (one position of one sequence, `rest` elements): while the
// position is below its sequence's length.
QV_HOST_DEVICE inline bool SequenceMaskKeepsRow(const SequenceMaskGeometry& g, const float* lengths, int64_t outer) {
  const int64_t s = g.axis == 0 ? outer / g.batch : outer % g.seq;
  const int64_t b = g.axis == 0 ? outer % g.batch : outer / g.seq;
  return s < KeptLength(lengths[b], g.seq);
}

// Element `at` of SequenceMask.
QV_HOST_DEVICE inline float SequenceMaskElement(const SequenceMaskGeometry& g, const float* x, const float* lengths,
                                                int64_t at) {
  return SequenceMaskKeepsRow(g, lengths, at / g.rest) ? x[at] : g.value;
}

}  // namespace qv
