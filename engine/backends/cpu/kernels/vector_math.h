// Float32 math the compiler vectorizes, for the CPU loops where libm's scalar calls would dominate (the
// RNN gates, softmax): exp, sigmoid and tanh as polynomials within a few units in the last place, and a
// 16-float vector type. Functions built from them are defined with QV_VECTOR_FUNCTION: one body per
// instruction set (AVX-512, AVX2, baseline x86-64), the widest the CPU has run.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace qv::cpu {

// The widest instruction set oneDNN uses here (ONEDNN_MAX_CPU_ISA narrows it for these loops too).
enum class VectorIsa { kBaseline, kAvx2, kAvx512 };
VectorIsa CpuVectorIsa();
// "x86-64", "avx2" or "avx512": for the kernel names profiles show (as oneDNN's "jit:avx2").
const char* VectorIsaName(VectorIsa isa);

template <typename Function>
Function PickVectorBody(Function baseline, Function avx2, Function avx512) {
  switch (CpuVectorIsa()) {
    case VectorIsa::kAvx512: return avx512;
    case VectorIsa::kAvx2: return avx2;
    default: return baseline;
  }
}

}  // namespace qv::cpu

// QV_VECTOR_FUNCTION(ret, name, (params), (argument names)) { body } defines `ret name(params)`: the body
// compiled three times, for AVX-512 (oneDNN's avx512_core), AVX2 with FMA and baseline x86-64, and a
// dispatcher that calls the one picked at its first call. Not GCC's target_clones: their resolver
// reads the CPU model that libgcc's constructor fills in, which the runtime of zig's clang (the shipped
// natives) leaves empty, so every clone there was the baseline one; nor can a resolver, run while the
// library relocates, ask oneDNN or run under a sanitizer.
#define QV_VECTOR_FUNCTION(ret, name, params, args)                                                      \
  static inline __attribute__((always_inline)) ret name##Body params;                                    \
  static ret name##Baseline params { return name##Body args; }                                           \
  __attribute__((target("avx2,fma"))) static ret name##Avx2 params { return name##Body args; }           \
  __attribute__((target("avx512f,avx512cd,avx512bw,avx512dq,avx512vl,avx2,fma"))) static ret name##Avx512 \
      params {                                                                                           \
    return name##Body args;                                                                              \
  }                                                                                                      \
  ret name params {                                                                                      \
    static const auto chosen = ::qv::cpu::PickVectorBody(name##Baseline, name##Avx2, name##Avx512);     \
    return chosen args;                                                                                  \
  }                                                                                                      \
  static inline __attribute__((always_inline)) ret name##Body params

// Vec16 values cross only the inline functions here and the loops of the files that include this
// header, never a library boundary, so GCC's note that passing one by value has another ABI without
// AVX-512 does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace qv::cpu {

// 16 floats: one AVX-512 register, two AVX2 ones or four SSE ones, per body.
typedef float Vec16 __attribute__((vector_size(64)));

inline Vec16 LoadVec(const float* p) {
  Vec16 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline void StoreVec(float* p, Vec16 v) { std::memcpy(p, &v, sizeof v); }

// e^v: 0 below -87 (where it leaves float's normal range), e^88 above 88. v = n ln2 + r with
// |r| <= ln2/2, e^r by a degree-6 polynomial (Cephes' expf coefficients), 2^n put into the exponent
// bits. Relative error ~1e-7.
inline float VecExp(float v) {
  const float x = std::min(std::max(v, -87.f), 88.f);
  constexpr float kRound = 12582912.f;  // 1.5 * 2^23: adding it rounds to an integer in the low mantissa bits
  const float shifted = x * 1.44269504f + kRound;
  const float n = shifted - kRound;
  const float r = x - n * 0.693359375f + n * 2.12194440e-4f;  // ln2 split in two for an exact product
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.f;
  uint32_t bits;  // unsigned: a NaN's bits shift out without overflow (NaN propagates through p)
  std::memcpy(&bits, &shifted, sizeof bits);
  bits = (bits - 0x4B400000u + 127u) << 23;  // the integer n, biased, as a float's exponent
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return v < -87.f ? 0.f : p * scale;
}

inline float VecSigmoid(float v) { return 1.f / (1.f + VecExp(-v)); }

// tanh: an odd polynomial below |v| = 0.625 (Cephes' tanhf), where 1 - 2 / (e^2v + 1) would cancel;
// past 9 it is 1 to float precision.
inline float VecTanh(float v) {
  const float a = std::min(std::abs(v), 9.f);
  const float z = v * v;
  const float small = ((((-5.70498872745e-3f * z + 2.06390887954e-2f) * z - 5.37397155531e-2f) * z +
                        1.33314422036e-1f) * z - 3.33332819422e-1f) * z * v + v;
  const float large = 1.f - 2.f / (VecExp(2.f * a) + 1.f);
  return a < 0.625f ? small : (v < 0 ? -large : large);
}

// The functions above over n floats, y[i] = f(x[i]) (in place if y == x), as every clone computes them.
void ExpLoop(const float* x, float* y, int64_t n);
void SigmoidLoop(const float* x, float* y, int64_t n);
void TanhLoop(const float* x, float* y, int64_t n);

// max |x[i]| over n floats, NaNs left out (0 for none), 16 at a time.
float LargestMagnitude(const float* x, int64_t n);

}  // namespace qv::cpu
