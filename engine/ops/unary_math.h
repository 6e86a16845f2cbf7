// Math functions of one float32 tensor, element by element, with MXNet 1.9.1's names and definitions
// (mshadow_op.h): both backends apply ApplyUnaryMath, so that they agree with each other and, through
// the same float functions MXNet calls, with MXNet.
#pragma once

#include <cmath>
#include <string>

#include "ops/host_device.h"

namespace qv {

enum class UnaryMath {
  kExp, kExpm1, kLog, kLog2, kLog10, kLog1p, kSqrt, kRsqrt, kCbrt, kSquare, kReciprocal, kAbs, kSign,
  kNegative, kFloor, kCeil, kRound, kRint, kTrunc, kFix, kSin, kCos, kTan, kTanh, kErf
};

// The function an operator name stands for ("exp", "log2", ...).
UnaryMath UnaryMathOf(const std::string& op);
// f(0) == 0 (so a blocked layout's zero padding stays zero).
bool KeepsZero(UnaryMath f);

QV_HOST_DEVICE inline float ApplyUnaryMath(UnaryMath f, float x) {
  switch (f) {
    case UnaryMath::kExp: return expf(x);
    case UnaryMath::kExpm1: return expm1f(x);
    case UnaryMath::kLog: return logf(x);
    case UnaryMath::kLog2: return log2f(x);
    case UnaryMath::kLog10: return log10f(x);
    case UnaryMath::kLog1p: return log1pf(x);
    case UnaryMath::kSqrt: return sqrtf(x);
    case UnaryMath::kRsqrt: return 1.f / sqrtf(x);
    case UnaryMath::kCbrt: return cbrtf(x);
    case UnaryMath::kSquare: return x * x;
    case UnaryMath::kReciprocal: return 1.f / x;
    case UnaryMath::kAbs: return fabsf(x);
    case UnaryMath::kSign: return x < 0.f ? -1.f : x > 0.f ? 1.f : 0.f;
    case UnaryMath::kNegative: return -x;
    case UnaryMath::kFloor: return floorf(x);
    case UnaryMath::kCeil: return ceilf(x);
    case UnaryMath::kRound: return roundf(x);  // halves away from zero
    case UnaryMath::kRint: {  // MXNet's rint: the nearer of floor and ceil, halves to floor
      const float lo = floorf(x), hi = ceilf(x);
      return x - lo <= hi - x ? lo : hi;
    }
    case UnaryMath::kTrunc: return truncf(x);
    case UnaryMath::kFix: {  // the one of floor and ceil nearer to zero
      const float lo = floorf(x), hi = ceilf(x);
      return fabsf(lo) < fabsf(hi) ? lo : hi;
    }
    case UnaryMath::kSin: return sinf(x);
    case UnaryMath::kCos: return cosf(x);
    case UnaryMath::kTan: return tanf(x);
    case UnaryMath::kTanh: return tanhf(x);
    case UnaryMath::kErf: return erff(x);
  }
  return x;
}

}  // namespace qv
