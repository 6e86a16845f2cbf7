// Arithmetic with a scalar attribute: _plus_scalar, _minus_scalar, _rminus_scalar, _mul_scalar,
// _div_scalar, _rdiv_scalar (and their _PlusScalar-style aliases), _maximum_scalar, _minimum_scalar,
// _power_scalar, _rpower_scalar, _mod_scalar, _rmod_scalar, and the comparisons _greater_scalar,
// _greater_equal_scalar, _lesser_scalar, _lesser_equal_scalar, _equal_scalar, _not_equal_scalar, which
// give 1 where the comparison holds and 0 elsewhere.
#pragma once

#include "ops/binary_math.h"
#include "ops/op.h"

namespace qv {

struct ScalarArith {
  BinaryMath f = BinaryMath::kAdd;
  bool scalar_first = false;  // f(scalar, x) (_rminus_scalar, _rdiv_scalar, ...) instead of f(x, scalar)
  float scalar = 0.f;

  // f and the order from the operator name, scalar from the required "scalar" attribute.
  static ScalarArith Parse(const Attrs& attrs);

  // x + s, x - s, s - x, x * s and x / s as alpha * x + beta (division as multiplication by the
  // reciprocal); false for the others.
  bool AsLinear(float* alpha, float* beta) const;
};

}  // namespace qv
