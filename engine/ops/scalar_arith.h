// Arithmetic with a scalar attribute: _plus_scalar, _minus_scalar, _rminus_scalar, _mul_scalar,
// _div_scalar, _rdiv_scalar (and their _PlusScalar-style aliases), and the comparisons _greater_scalar,
// _greater_equal_scalar, _lesser_scalar, _lesser_equal_scalar, _equal_scalar, _not_equal_scalar, which
// give 1 where the comparison holds and 0 elsewhere.
#pragma once

#include "ops/op.h"

namespace qv {

struct ScalarArith {
  enum Kind {
    kPlus, kMinus, kRMinus, kMul, kDiv, kRDiv,
    kGreater, kGreaterEqual, kLesser, kLesserEqual, kEqual, kNotEqual
  };
  Kind kind = kPlus;
  float scalar = 0.f;

  // Kind from the operator name, scalar from the required "scalar" attribute.
  static ScalarArith Parse(const Attrs& attrs);

  // The arithmetic kinds but scalar / x as alpha * x + beta (division as multiplication by the
  // reciprocal); false for kRDiv and the comparisons.
  bool AsLinear(float* alpha, float* beta) const;
};

}  // namespace qv
