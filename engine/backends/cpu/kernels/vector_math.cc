#include "backends/cpu/kernels/vector_math.h"

#include "backends/cpu/runtime/cpu_precision.h"

namespace qv::cpu {

VectorIsa CpuVectorIsa() {
  if (HasAvx512()) return VectorIsa::kAvx512;
  return HasAvx2() ? VectorIsa::kAvx2 : VectorIsa::kBaseline;
}

const char* VectorIsaName(VectorIsa isa) {
  switch (isa) {
    case VectorIsa::kAvx512: return "avx512";
    case VectorIsa::kAvx2: return "avx2";
    default: return "x86-64";
  }
}

QV_VECTOR_FUNCTION(void, ExpLoop, (const float* x, float* y, int64_t n), (x, y, n)) {
  for (int64_t i = 0; i < n; ++i) y[i] = VecExp(x[i]);
}

QV_VECTOR_FUNCTION(void, SigmoidLoop, (const float* x, float* y, int64_t n), (x, y, n)) {
  for (int64_t i = 0; i < n; ++i) y[i] = VecSigmoid(x[i]);
}

QV_VECTOR_FUNCTION(void, TanhLoop, (const float* x, float* y, int64_t n), (x, y, n)) {
  for (int64_t i = 0; i < n; ++i) y[i] = VecTanh(x[i]);
}

// Compares |x| as integers: the bits of floats >= +0 order as their values do, and integer maxima
// vectorize without fast-math (a float maximum must keep its NaN behaviour, which the compiler then
// leaves scalar). NaNs' bits are above infinity's; they count as 0.
QV_VECTOR_FUNCTION(float, LargestMagnitude, (const float* x, int64_t n), (x, n)) {
  typedef int32_t Bits16 __attribute__((vector_size(64)));
  constexpr int kLanes = sizeof(Bits16) / sizeof(int32_t);
  constexpr int32_t kInfinity = 0x7f800000;
  Bits16 lanes = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    Bits16 magnitude = (Bits16)LoadVec(x + i) & 0x7fffffff;
    magnitude = magnitude > kInfinity ? 0 : magnitude;
    lanes = lanes > magnitude ? lanes : magnitude;
  }
  float largest = 0;
  for (; i < n; ++i) largest = std::max(largest, std::fabs(x[i]));
  for (int j = 0; j < kLanes; ++j) {
    const int32_t bits = lanes[j];  // clang takes no address of a vector element
    float v;
    std::memcpy(&v, &bits, sizeof v);
    largest = std::max(largest, v);
  }
  return largest;
}

}  // namespace qv::cpu
