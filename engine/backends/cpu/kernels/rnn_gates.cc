#include "backends/cpu/kernels/rnn_gates.h"

#include "backends/cpu/kernels/vector_math.h"

namespace qv::cpu {

QV_VECTOR_FUNCTION(void, RowTimesPanels, (const float* panels, const float* b, const float* x, float* y, int64_t k,
                   int64_t n), (panels, b, x, y, k, n)) {
  const int64_t panel = k * 16;
  int64_t j = 0;
  for (; j + 64 <= n; j += 64) {  // four panels at once: four sequential streams, one load per multiply-add
    const float* p = panels + j / 16 * panel;
    Vec16 a0 = LoadVec(b + j), a1 = LoadVec(b + j + 16), a2 = LoadVec(b + j + 32), a3 = LoadVec(b + j + 48);
    for (int64_t i = 0; i < k; ++i) {
      const Vec16 xi = Vec16{} + x[i];
      a0 += xi * LoadVec(p + i * 16);
      a1 += xi * LoadVec(p + panel + i * 16);
      a2 += xi * LoadVec(p + 2 * panel + i * 16);
      a3 += xi * LoadVec(p + 3 * panel + i * 16);
    }
    StoreVec(y + j, a0);
    StoreVec(y + j + 16, a1);
    StoreVec(y + j + 32, a2);
    StoreVec(y + j + 48, a3);
  }
  for (; j < n; j += 16) {
    const float* p = panels + j / 16 * panel;
    Vec16 a = LoadVec(b + j);
    for (int64_t i = 0; i < k; ++i) a += (Vec16{} + x[i]) * LoadVec(p + i * 16);
    StoreVec(y + j, a);
  }
}

// The loops below take restrict pointers: without them the compiler must prove the arrays apart at run
// time and gives up vectorizing a loop with this many.
QV_VECTOR_FUNCTION(void, RnnGates, (RnnMode mode, int64_t units, int64_t x_stride, int64_t r_stride,
                   const float* __restrict x, const float* __restrict r, const float* __restrict h, float* __restrict c,
                   float* __restrict h_out, float* __restrict y, float* __restrict scratch), (mode, units, x_stride,
                   r_stride, x, r, h, c, h_out, y, scratch)) {
  const int64_t u = units;
  switch (mode) {
    case RnnMode::kLstm:  // i, f, g, o
      for (int64_t g = 0; g < 4; ++g)
        for (int64_t j = 0; j < u; ++j) scratch[g * u + j] = x[g * x_stride + j] + r[g * r_stride + j];
      for (int64_t j = 0; j < 2 * u; ++j) scratch[j] = VecSigmoid(scratch[j]);
      for (int64_t j = 2 * u; j < 3 * u; ++j) scratch[j] = VecTanh(scratch[j]);
      for (int64_t j = 3 * u; j < 4 * u; ++j) scratch[j] = VecSigmoid(scratch[j]);
      for (int64_t j = 0; j < u; ++j) {
        c[j] = scratch[u + j] * c[j] + scratch[j] * scratch[2 * u + j];
        h_out[j] = y[j] = scratch[3 * u + j] * VecTanh(c[j]);
      }
      break;
    case RnnMode::kGru:  // reset, update, new: n = tanh(x_n + reset * (W_hn h + b_hn)); h' = (1 - z) n + z h
      for (int64_t g = 0; g < 2; ++g)
        for (int64_t j = 0; j < u; ++j) scratch[g * u + j] = VecSigmoid(x[g * x_stride + j] + r[g * r_stride + j]);
      for (int64_t j = 0; j < u; ++j)
        scratch[2 * u + j] = VecTanh(x[2 * x_stride + j] + scratch[j] * r[2 * r_stride + j]);
      for (int64_t j = 0; j < u; ++j) {
        const float z = scratch[u + j];
        h_out[j] = y[j] = (1.f - z) * scratch[2 * u + j] + z * h[j];
      }
      break;
    case RnnMode::kRnnRelu:
      for (int64_t j = 0; j < u; ++j) h_out[j] = y[j] = std::max(x[j] + r[j], 0.f);
      break;
    case RnnMode::kRnnTanh:
      for (int64_t j = 0; j < u; ++j) h_out[j] = y[j] = VecTanh(x[j] + r[j]);
      break;
  }
}

}  // namespace qv::cpu
