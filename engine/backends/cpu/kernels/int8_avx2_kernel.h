// What Quiver's own int8 convolutions for AVX2 CPUs without int8 dot products share (the depthwise
// and the matrix-product kernels): channels-last int8 data in, each output pixel's channels finished
// from their accumulators in one multiply-add and one clamp, at most one fused ReLU or clip, and the
// work shared out among the threads.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends/cpu/kernels/kernel.h"
#include "backends/cpu/runtime/compute_pool.h"
#include "backends/cpu/runtime/thread_buffer.h"
#include "ops/convolution.h"
#include "ops/int8_hints.h"

// __m256 values cross only inline functions of the kernels' files.
#pragma GCC diagnostic ignored "-Wpsabi"

#define QV_AVX2 __attribute__((target("avx2,fma")))

namespace qv::cpu {

enum class Int8Out { kUInt8, kInt8, kFloat32 };

// Per 8 output channels, the epilogue folded into one multiply-add and one clamp: the accumulator's
// scale (data step x weight step) and the bias, both divided by the output's step (1 for a float32
// output), and the bounds of the fused ReLU or clip, likewise divided and narrowed to the output type's
// range. oneDNN's kernels apply the same steps one at a time (scale, bias, bound, divide, saturate);
// folded, a value can round differently only where it lies within float32 rounding of a half step.
struct Int8Epilogue {
  __m256 scale, bias, lo, hi, inverse;
};

// The epilogue's constants for an output of type `out` with inverse step `inverse` (1 for float32):
// bounds [lo, hi] on the value; the scale and bias are set per 8 channels by SetInt8Channels.
QV_AVX2 inline Int8Epilogue MakeInt8Epilogue(Int8Out out, float lo, float hi, float inverse) {
  Int8Epilogue e;
  e.scale = e.bias = _mm256_setzero_ps();
  e.inverse = _mm256_set1_ps(inverse);
  if (out == Int8Out::kFloat32) {
    e.lo = _mm256_set1_ps(lo);
    e.hi = _mm256_set1_ps(hi);
  } else {
    e.lo = _mm256_set1_ps(std::max(lo * inverse, out == Int8Out::kUInt8 ? 0.f : -128.f));
    e.hi = _mm256_set1_ps(std::min(hi * inverse, out == Int8Out::kUInt8 ? 255.f : 127.f));
  }
  return e;
}

// The scale and bias of 8 channels: the data's scale times their weight scales, and their bias (null:
// none), divided by the output's step.
QV_AVX2 inline __attribute__((always_inline)) void SetInt8Channels(Int8Epilogue& e, __m256 src_scale,
                                                                   const float* weight_scales, const float* bias) {
  e.scale = _mm256_mul_ps(_mm256_mul_ps(src_scale, _mm256_loadu_ps(weight_scales)), e.inverse);
  e.bias = bias ? _mm256_mul_ps(_mm256_loadu_ps(bias), e.inverse) : _mm256_setzero_ps();
}

// 8 channels of one output pixel as values of the output type: scaled and biased in one step, clamped
// to the fused bounds and the output type's range (rounded to integers when stored).
QV_AVX2 inline __attribute__((always_inline)) __m256 FinishInt8(__m256 acc, const Int8Epilogue& e) {
  return _mm256_min_ps(_mm256_max_ps(_mm256_fmadd_ps(acc, e.scale, e.bias), e.lo), e.hi);
}

// 16-bit words saturated to the output's 8-bit type, lane by lane.
template <Int8Out kOut>
QV_AVX2 inline __attribute__((always_inline)) __m128i PackWords(__m128i a, __m128i b) {
  return kOut == Int8Out::kUInt8 ? _mm_packus_epi16(a, b) : _mm_packs_epi16(a, b);
}
template <Int8Out kOut>
QV_AVX2 inline __attribute__((always_inline)) __m256i PackWords(__m256i a, __m256i b) {
  return kOut == Int8Out::kUInt8 ? _mm256_packus_epi16(a, b) : _mm256_packs_epi16(a, b);
}

// kVectors x 8 finished channels (FinishInt8) as int8 rounded to nearest even, 8 bytes per vector in
// order in the returned register's low bytes.
template <Int8Out kOut, int64_t kVectors>
QV_AVX2 inline __attribute__((always_inline)) __m256i PackInt8(const __m256* v) {
  static_assert(kOut != Int8Out::kFloat32 && kVectors >= 1 && kVectors <= 4, "one to four vectors of int8");
  __m256i ints[4];
  for (int64_t i = 0; i < kVectors; ++i) ints[i] = _mm256_cvtps_epi32(v[i]);
  if constexpr (kVectors == 1) {
    const __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(ints[0]), _mm256_extracti128_si256(ints[0], 1));
    return _mm256_castsi128_si256(PackWords<kOut>(words, words));
  } else {
    for (int64_t i = kVectors; i < 4; ++i) ints[i] = ints[kVectors - 1];
    // Packing works within 128-bit lanes: 4-byte groups come out as a0 b0 c0 d0 a1 b1 c1 d1 (a0: the
    // first 4 channels of v[0]), put back in order by one permutation.
    const __m256i packed = PackWords<kOut>(_mm256_packs_epi32(ints[0], ints[1]), _mm256_packs_epi32(ints[2], ints[3]));
    return _mm256_permutevar8x32_epi32(packed, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
  }
}

// kVectors x 8 finished channels, contiguous in the output: float32 as they are, int8 packed into one
// store of up to 32 bytes.
template <Int8Out kOut, int64_t kVectors>
QV_AVX2 inline __attribute__((always_inline)) void StoreInt8Vectors(const __m256* v, char* out) {
  if constexpr (kOut == Int8Out::kFloat32) {
    for (int64_t i = 0; i < kVectors; ++i) _mm256_storeu_ps(reinterpret_cast<float*>(out) + i * 8, v[i]);
  } else {
    const __m256i packed = PackInt8<kOut, kVectors>(v);
    auto* dst = reinterpret_cast<__m128i*>(out);
    if constexpr (kVectors == 4) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), packed);
    } else if constexpr (kVectors == 1) {
      _mm_storel_epi64(dst, _mm256_castsi256_si128(packed));
    } else {
      _mm_storeu_si128(dst, _mm256_castsi256_si128(packed));
      if constexpr (kVectors == 3) _mm_storel_epi64(dst + 1, _mm256_extracti128_si256(packed, 1));
    }
  }
}

// 4 x 8 finished channels, each vector `step` bytes after the one before (the same channels of 4
// pixels): int8 packed together, then stored 8 bytes at a time.
template <Int8Out kOut>
QV_AVX2 inline __attribute__((always_inline)) void StoreInt8Strided4(const __m256* v, char* out, int64_t step) {
  if constexpr (kOut == Int8Out::kFloat32) {
    for (int64_t i = 0; i < 4; ++i) _mm256_storeu_ps(reinterpret_cast<float*>(out + i * step), v[i]);
  } else {
    const __m256i packed = PackInt8<kOut, 4>(v);
    const __m128d low = _mm_castsi128_pd(_mm256_castsi256_si128(packed));
    const __m128d high = _mm_castsi128_pd(_mm256_extracti128_si256(packed, 1));
    _mm_storel_pd(reinterpret_cast<double*>(out), low);
    _mm_storeh_pd(reinterpret_cast<double*>(out + step), low);
    _mm_storel_pd(reinterpret_cast<double*>(out + 2 * step), high);
    _mm_storeh_pd(reinterpret_cast<double*>(out + 3 * step), high);
  }
}

// 8 channels of one output pixel, finished and stored.
template <Int8Out kOut>
QV_AVX2 inline __attribute__((always_inline)) void StoreInt8Output(__m256 acc, const Int8Epilogue& e, char* out) {
  const __m256 v = FinishInt8(acc, e);
  StoreInt8Vectors<kOut, 1>(&v, out);
}

// Bytes per output value.
constexpr int64_t Int8OutBytes(Int8Out out) { return out == Int8Out::kFloat32 ? sizeof(float) : 1; }

// The fused post-ops as bounds on the value (none: unbounded), or nothing where they are more than
// one ReLU or clip (a residual sum among them).
inline std::optional<std::pair<float, float>> Int8OutputBounds(const std::vector<PostOp>& ops) {
  constexpr float kInfinity = std::numeric_limits<float>::infinity();
  if (ops.empty()) return std::make_pair(-kInfinity, kInfinity);
  if (ops.size() > 1) return std::nullopt;
  if (ops[0].kind == PostOp::kRelu) return std::make_pair(0.f, kInfinity);
  if (ops[0].kind == PostOp::kClip) return std::make_pair(ops[0].alpha, ops[0].beta);
  return std::nullopt;
}

// What a kernel's build declares and keeps besides its weights: the data read channels-last in its
// int8 type (shifted or not), the output written channels-last, the bias, the bounds, and where the
// data's and the output's scales are stored.
struct Int8Avx2Io {
  bool signed_data;
  Int8Out out;
  std::shared_ptr<void> bias;  // null: none
  float lo, hi;
  size_t src_scale_at, dst_scale_at;
  float out_scale;  // 0: a float32 output
};
// Declares input 0 and output 0 on `build` (and its multiply-add count) for a convolution that
// Int8OutputBounds accepts.
Int8Avx2Io DeclareInt8Avx2Io(const KernelRequest& req, const ConvolutionParams& p, const Int8Hints& h,
                             KernelBuild& build);

// One run's data for a kernel whose geometry is `Geometry`: the data's integers and scale, the weights
// in the kernel's own layout with each output channel's scale, the epilogue's values, the output.
template <class Geometry>
struct Int8Run {
  const Geometry* g;
  const uint8_t* src;
  float src_scale;
  const void* weights;
  const float* weight_scales;
  const float* bias;  // null: none
  float lo, hi, inverse;
  char* dst;
};

// A kernel whose threads share Geometry::Units() pieces of work: `units` computes [first, end) of
// them with a thread's buffer of Geometry::BufferBytes().
template <class Geometry>
class Int8UnitsKernel : public Kernel {
 public:
  using Units = void (*)(const Int8Run<Geometry>& run, int64_t first, int64_t end, void* buffer);

  Int8UnitsKernel(std::string name, const Geometry& g, Units units, Int8Avx2Io io, std::shared_ptr<void> weights,
                  std::shared_ptr<void> weight_scales)
      : name_(std::move(name)),
        g_(g),
        units_(units),
        io_(std::move(io)),
        weights_(std::move(weights)),
        weight_scales_(std::move(weight_scales)) {}

  std::string Implementation() const override { return name_; }

  void Execute(const ExecArgs& args) const override {
    const auto* src = static_cast<const uint8_t*>(args.inputs[0]);
    auto* dst = static_cast<char*>(args.outputs[0]);
    float src_scale;
    std::memcpy(&src_scale, src + io_.src_scale_at, sizeof src_scale);
    if (io_.out_scale > 0) std::memcpy(dst + io_.dst_scale_at, &io_.out_scale, sizeof io_.out_scale);
    const Int8Run<Geometry> run{&g_,
                                src,
                                src_scale,
                                weights_.get(),
                                static_cast<const float*>(weight_scales_.get()),
                                static_cast<const float*>(io_.bias.get()),
                                io_.lo,
                                io_.hi,
                                io_.out_scale > 0 ? 1.f / io_.out_scale : 1.f,
                                dst};
    const int64_t units = g_.Units();
    const int tasks = static_cast<int>(std::min<int64_t>(std::max(args.threads, 1), units));
    ComputePool::Get().Run(tasks, tasks, [&](int t, int count) {
      thread_local ThreadBuffer t_buffer;
      units_(run, units * t / count, units * (t + 1) / count, t_buffer.Get(g_.BufferBytes()));
    });
  }

 private:
  const std::string name_;
  const Geometry g_;
  const Units units_;
  const Int8Avx2Io io_;
  const std::shared_ptr<void> weights_;
  const std::shared_ptr<void> weight_scales_;
};

}  // namespace qv::cpu
