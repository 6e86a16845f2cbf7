// Rounding a float32 to the nearest bfloat16, on its bits: shared by the host (ops/amp_cast.cc) and
// device code (backends/cuda/amp_cast.cu), which must agree bit for bit.
#pragma once

#include <cstdint>

#include "ops/host_device.h"

namespace qv {

// The bits of the bfloat16 nearest to the float32 with bits `bits`, widened back to float32: round to
// nearest, ties to even; overflow gives infinity; float32 subnormals become a zero of the same sign; a
// NaN stays a NaN (its payload truncated, quiet bit set).
QV_HOST_DEVICE inline uint32_t BFloat16RoundedBits(uint32_t bits) {
  const uint32_t exponent = (bits >> 23) & 0xffu;
  const uint32_t mantissa = bits & 0x7fffffu;
  if (exponent == 0) return bits & 0x80000000u;
  if (exponent == 0xffu) return mantissa != 0 ? (bits & 0xffff0000u) | 0x00400000u : bits;
  // Adding just under half a unit of the kept part, plus one when the kept part is odd, then
  // truncating, rounds to nearest with ties to even; a carry into the exponent is still correct.
  return (bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u;
}

}  // namespace qv

#undef QV_HOST_DEVICE
