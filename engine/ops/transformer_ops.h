// Attribute parsing shared by the transformer operators' kernels (both backends); the arithmetic is
// in ops/transformer_math.h.
#pragma once

#include "ops/op.h"
#include "ops/transformer_math.h"

namespace qv {

// LayerNorm(axis=-1, eps=1e-5) of data viewed as (outer, axis, inner).
struct LayerNormGeometry {
  int64_t outer = 1, axis = 1, inner = 1;
  float eps = 1e-5f;
};
LayerNormGeometry ResolveLayerNorm(const Attrs& attrs, const Shape& data);

// batch_dot(transpose_a, transpose_b) of operands of shapes `a` and `b`.
BatchDotGeometry ResolveBatchDot(const Attrs& attrs, const Shape& a, const Shape& b);

// dot(transpose_a, transpose_b) of operands of shapes `a` and `b`: one product (batch 1) of the operands
// flattened to matrices, and the output's shape.
BatchDotGeometry ResolveDot(const Attrs& attrs, const Shape& a, const Shape& b, Shape* out = nullptr);

// _contrib_interleaved_matmul_selfatt_qk / _valatt(heads) on projections of shape `qkv`.
InterleavedGeometry ResolveInterleaved(const Attrs& attrs, const Shape& qkv);

// SequenceMask(use_sequence_length, value, axis) on data of shape `data`.
SequenceMaskGeometry ResolveSequenceMask(const Attrs& attrs, const Shape& data);

// _contrib_div_sqrt_dim's divisor: sqrt(last dimension), rounded to float as MXNet does.
float DivSqrtDimDivisor(const Shape& data);

}  // namespace qv
