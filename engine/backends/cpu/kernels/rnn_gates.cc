#include "backends/cpu/kernels/rnn_gates.h"

#include <algorithm>
#include <cmath>
#include <cstring>

// One body per instruction set; the loader's resolver picks the best the CPU has.
#define QV_VECTOR_CLONES __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")))

namespace qv::cpu {
namespace {

// e^v for v in [-87, 88] (clamped): v = n ln2 + r with |r| <= ln2/2, e^r by its degree-6 Taylor-like
// minimax polynomial (Cephes' expf coefficients), 2^n put into the exponent bits. Relative error ~1e-7.
inline float Exp(float v) {
  v = std::min(std::max(v, -87.f), 88.f);
  constexpr float kRound = 12582912.f;  // 1.5 * 2^23: adding it rounds to an integer in the low mantissa bits
  const float shifted = v * 1.44269504f + kRound;
  const float n = shifted - kRound;
  const float r = v - n * 0.693359375f + n * 2.12194440e-4f;  // ln2 split in two for an exact product
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.f;
  int32_t bits;
  std::memcpy(&bits, &shifted, sizeof bits);
  bits = (bits - 0x4B400000 + 127) << 23;  // the integer n, biased, as a float's exponent
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

// 16 floats: the compiler lowers it to one AVX-512 register, two AVX2 ones or four SSE ones per clone.
// Values of it cross only inline functions of this file, so the warning that passing one by value has
// another ABI without AVX-512 does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"
typedef float Vec16 __attribute__((vector_size(64)));

inline Vec16 Load(const float* p) {
  Vec16 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline void Store(float* p, Vec16 v) { std::memcpy(p, &v, sizeof v); }

inline float Sigmoid(float v) { return 1.f / (1.f + Exp(-v)); }

// tanh: an odd polynomial below |v| = 0.625 (Cephes' tanhf), where 1 - 2 / (e^2v + 1) would cancel;
// past 9 it is 1 to float precision.
inline float Tanh(float v) {
  const float a = std::min(std::abs(v), 9.f);
  const float z = v * v;
  const float small = ((((-5.70498872745e-3f * z + 2.06390887954e-2f) * z - 5.37397155531e-2f) * z +
                        1.33314422036e-1f) * z - 3.33332819422e-1f) * z * v + v;
  const float large = 1.f - 2.f / (Exp(2.f * a) + 1.f);
  return a < 0.625f ? small : (v < 0 ? -large : large);
}

}  // namespace

QV_VECTOR_CLONES void RowTimesPanels(const float* panels, const float* b, const float* x, float* y, int64_t k,
                                     int64_t n) {
  const int64_t panel = k * 16;
  int64_t j = 0;
  for (; j + 64 <= n; j += 64) {  // four panels at once: four sequential streams, one load per multiply-add
    const float* p = panels + j / 16 * panel;
    Vec16 a0 = Load(b + j), a1 = Load(b + j + 16), a2 = Load(b + j + 32), a3 = Load(b + j + 48);
    for (int64_t i = 0; i < k; ++i) {
      const Vec16 xi = Vec16{} + x[i];
      a0 += xi * Load(p + i * 16);
      a1 += xi * Load(p + panel + i * 16);
      a2 += xi * Load(p + 2 * panel + i * 16);
      a3 += xi * Load(p + 3 * panel + i * 16);
    }
    Store(y + j, a0);
    Store(y + j + 16, a1);
    Store(y + j + 32, a2);
    Store(y + j + 48, a3);
  }
  for (; j < n; j += 16) {
    const float* p = panels + j / 16 * panel;
    Vec16 a = Load(b + j);
    for (int64_t i = 0; i < k; ++i) a += (Vec16{} + x[i]) * Load(p + i * 16);
    Store(y + j, a);
  }
}

QV_VECTOR_CLONES void SigmoidLoop(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = Sigmoid(x[i]);
}

QV_VECTOR_CLONES void TanhLoop(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = Tanh(x[i]);
}

// The loops below take restrict pointers: without them the compiler must prove the arrays apart at run
// time and gives up vectorizing a loop with this many.
QV_VECTOR_CLONES void RnnGates(RnnMode mode, int64_t units, int64_t x_stride, int64_t r_stride,
                               const float* __restrict x, const float* __restrict r, const float* __restrict h,
                               float* __restrict c, float* __restrict h_out, float* __restrict y,
                               float* __restrict scratch) {
  const int64_t u = units;
  switch (mode) {
    case RnnMode::kLstm:  // i, f, g, o
      for (int64_t g = 0; g < 4; ++g)
        for (int64_t j = 0; j < u; ++j) scratch[g * u + j] = x[g * x_stride + j] + r[g * r_stride + j];
      for (int64_t j = 0; j < 2 * u; ++j) scratch[j] = Sigmoid(scratch[j]);
      for (int64_t j = 2 * u; j < 3 * u; ++j) scratch[j] = Tanh(scratch[j]);
      for (int64_t j = 3 * u; j < 4 * u; ++j) scratch[j] = Sigmoid(scratch[j]);
      for (int64_t j = 0; j < u; ++j) {
        c[j] = scratch[u + j] * c[j] + scratch[j] * scratch[2 * u + j];
        h_out[j] = y[j] = scratch[3 * u + j] * Tanh(c[j]);
      }
      break;
    case RnnMode::kGru:  // reset, update, new: n = tanh(x_n + reset * (W_hn h + b_hn)); h' = (1 - z) n + z h
      for (int64_t g = 0; g < 2; ++g)
        for (int64_t j = 0; j < u; ++j) scratch[g * u + j] = Sigmoid(x[g * x_stride + j] + r[g * r_stride + j]);
      for (int64_t j = 0; j < u; ++j)
        scratch[2 * u + j] = Tanh(x[2 * x_stride + j] + scratch[j] * r[2 * r_stride + j]);
      for (int64_t j = 0; j < u; ++j) {
        const float z = scratch[u + j];
        h_out[j] = y[j] = (1.f - z) * scratch[2 * u + j] + z * h[j];
      }
      break;
    case RnnMode::kRnnRelu:
      for (int64_t j = 0; j < u; ++j) h_out[j] = y[j] = std::max(x[j] + r[j], 0.f);
      break;
    case RnnMode::kRnnTanh:
      for (int64_t j = 0; j < u; ++j) h_out[j] = y[j] = Tanh(x[j] + r[j]);
      break;
  }
}

}  // namespace qv::cpu
