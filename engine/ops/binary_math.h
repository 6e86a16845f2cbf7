// Functions of two floats, element by element, with MXNet 1.9.1's definitions (mshadow_op.h): the
// arithmetic of elemwise_*, broadcast_* and the scalar operators, applied by both backends.
#pragma once

#include <cmath>

#include "ops/host_device.h"

namespace qv {

enum class BinaryMath {
  kAdd, kSub, kMul, kDiv, kMaximum, kMinimum, kPower, kMod,
  kEqual, kNotEqual, kGreater, kGreaterEqual, kLesser, kLesserEqual  // 1 where a op b holds, else 0
};

// MXNet's mod: the remainder takes the divisor's sign (as Python's %), computed in double; x mod 0 = 0.
QV_HOST_DEVICE inline float MxnetMod(float a, float b) {
  if (b == 0.f) return 0.f;
  const double x = a, y = b;
  if (b < 0.f) {
    if (a < 0.f) return static_cast<float>(-fmod(-x, -y));
    const double r = fmod(x, -y);
    return static_cast<float>(r + (r != 0.0 ? y : 0.0));
  }
  if (a < 0.f) {
    const double r = fmod(-x, y);
    return static_cast<float>(-r + (r != 0.0 ? y : 0.0));
  }
  return static_cast<float>(fmod(x, y));
}

QV_HOST_DEVICE inline float ApplyBinaryMath(BinaryMath f, float a, float b) {
  switch (f) {
    case BinaryMath::kAdd: return a + b;
    case BinaryMath::kSub: return a - b;
    case BinaryMath::kMul: return a * b;
    case BinaryMath::kDiv: return a / b;
    case BinaryMath::kMaximum: return a > b ? a : b;
    case BinaryMath::kMinimum: return a < b ? a : b;
    case BinaryMath::kPower: return powf(a, b);
    case BinaryMath::kMod: return MxnetMod(a, b);
    case BinaryMath::kEqual: return a == b ? 1.f : 0.f;
    case BinaryMath::kNotEqual: return a != b ? 1.f : 0.f;
    case BinaryMath::kGreater: return a > b ? 1.f : 0.f;
    case BinaryMath::kGreaterEqual: return a >= b ? 1.f : 0.f;
    case BinaryMath::kLesser: return a < b ? 1.f : 0.f;
    case BinaryMath::kLesserEqual: return a <= b ? 1.f : 0.f;
  }
  return a;
}

}  // namespace qv
