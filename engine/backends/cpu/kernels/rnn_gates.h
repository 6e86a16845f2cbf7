// The fused RNN's per-step arithmetic for a range of hidden units: the recurrent projection of one row
// and the gate math, in MXNet's gate order and formulas (rnn_impl.h), as loops the compiler vectorizes
// (vector_math.h: libm's scalar exp and tanh took half of a small LSTM's time).
#pragma once

#include <cstdint>

#include "ops/rnn.h"

namespace qv::cpu {

// y[j] = b[j] + sum_i x[i] W[j][i] for j < n, a multiple of 16: one row x (k floats) times W packed in
// panels of 16 outputs (panel q holds W's rows 16q..16q+15 as k groups of 16: element (j, i) at
// (j / 16) * 16k + 16i + j % 16), so that each panel is read front to back. A small batch's recurrent
// projection, where oneDNN's inner product on one row (~45 GFLOP/s) and a parallel dispatch per step
// cost more than the arithmetic.
void RowTimesPanels(const float* panels, const float* b, const float* x, float* y, int64_t k, int64_t n);

// One sequence's step for `units` hidden units. x and r: the step's input and recurrent projections
// (biases included), gate g of unit j at g * x_stride + j and g * r_stride + j; h, the previous state,
// c (an LSTM's cell, updated in place) and the new state, written to h_out and y, at j. No two arrays
// overlap. `scratch` holds gates() * units floats.
void RnnGates(RnnMode mode, int64_t units, int64_t x_stride, int64_t r_stride, const float* x, const float* r,
              const float* h, float* c, float* h_out, float* y, float* scratch);

}  // namespace qv::cpu
