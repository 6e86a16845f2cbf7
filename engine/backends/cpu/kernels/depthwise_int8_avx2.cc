#include "backends/cpu/kernels/depthwise_int8_avx2.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <utility>

#include "backends/cpu/kernels/int8_support.h"
#include "backends/cpu/runtime/compute_pool.h"
#include "backends/cpu/runtime/constant_cache.h"
#include "backends/cpu/runtime/cpu_precision.h"
#include "backends/cpu/runtime/thread_buffer.h"

// __m256 values cross only the inline functions of this file.
#pragma GCC diagnostic ignored "-Wpsabi"

#define QV_AVX2 __attribute__((target("avx2,fma")))

namespace qv::cpu {
namespace {

using dnnl::memory;

constexpr int64_t kLanes = 8;  // channels per vector
constexpr int kTaps = 9;

enum class Out { kUInt8, kInt8, kFloat32 };

struct Geometry {
  int64_t images, height, width, channels;
  // A converted row: per block of 8 channels, the width's pixels with a zero pixel each side.
  int64_t BlockFloats() const { return (width + 2) * kLanes; }
  int64_t RowFloats() const { return BlockFloats() * (channels / kLanes); }
};

// One run's data: the integers in and their scale, the float32 taps ([9][channels]) and each channel's
// weight scale, the bias (null: none), the fused ReLU or clip as bounds, the output's inverse step.
struct Run {
  const Geometry* g;
  const uint8_t* src;
  float src_scale;
  const float* taps;
  const float* weight_scales;
  const float* bias;
  float lo, hi, inverse;
  char* dst;
};

// Row `row` of image data as float32 blocks (Geometry::RowFloats).
template <bool kSigned>
QV_AVX2 void ConvertRow(const uint8_t* row, const Geometry& g, float* out) {
  const int64_t blocks = g.channels / kLanes;
  for (int64_t b = 0; b < blocks; ++b) {
    float* block = out + b * g.BlockFloats();
    _mm256_storeu_ps(block, _mm256_setzero_ps());
    _mm256_storeu_ps(block + (g.width + 1) * kLanes, _mm256_setzero_ps());
  }
  for (int64_t w = 0; w < g.width; ++w)
    for (int64_t b = 0; b < blocks; ++b) {
      const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(row + w * g.channels + b * kLanes));
      const __m256i ints = kSigned ? _mm256_cvtepi8_epi32(bytes) : _mm256_cvtepu8_epi32(bytes);
      _mm256_storeu_ps(out + b * g.BlockFloats() + (w + 1) * kLanes, _mm256_cvtepi32_ps(ints));
    }
}

struct Epilogue {
  __m256 scale, bias, lo, hi, inverse, type_lo, type_hi;
};

// 8 channels of one output pixel from their accumulator, as oneDNN's int8 kernels finish: scaled,
// biased, bounded, then (int8 outputs) divided by the output's step, saturated and rounded to nearest even.
template <Out kOut>
QV_AVX2 inline __attribute__((always_inline)) void Store(__m256 acc, const Epilogue& e, char* out) {
  __m256 v = _mm256_add_ps(_mm256_mul_ps(acc, e.scale), e.bias);
  v = _mm256_min_ps(_mm256_max_ps(v, e.lo), e.hi);
  if constexpr (kOut == Out::kFloat32) {
    _mm256_storeu_ps(reinterpret_cast<float*>(out), v);
  } else {
    v = _mm256_min_ps(_mm256_max_ps(_mm256_mul_ps(v, e.inverse), e.type_lo), e.type_hi);
    const __m256i ints = _mm256_cvtps_epi32(v);
    const __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(ints), _mm256_extracti128_si256(ints, 1));
    const __m128i bytes = kOut == Out::kUInt8 ? _mm_packus_epi16(words, words) : _mm_packs_epi16(words, words);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out), bytes);
  }
}

struct Taps {
  __m256 w[kTaps];
};

// Output pixel `ow` of 8 channels: the converted pixels ow .. ow + 2 (the zero pixel first) of each of
// the three rows, times the taps.
QV_AVX2 inline __attribute__((always_inline)) __m256 Accumulate(const float* p0, const float* p1, const float* p2,
                                                                int64_t ow, const Taps& t) {
  const int64_t at = ow * kLanes;
  __m256 acc = _mm256_mul_ps(_mm256_loadu_ps(p0 + at), t.w[0]);
  acc = _mm256_fmadd_ps(_mm256_loadu_ps(p0 + at + kLanes), t.w[1], acc);
  acc = _mm256_fmadd_ps(_mm256_loadu_ps(p0 + at + 2 * kLanes), t.w[2], acc);
  acc = _mm256_fmadd_ps(_mm256_loadu_ps(p1 + at), t.w[3], acc);
  acc = _mm256_fmadd_ps(_mm256_loadu_ps(p1 + at + kLanes), t.w[4], acc);
  acc = _mm256_fmadd_ps(_mm256_loadu_ps(p1 + at + 2 * kLanes), t.w[5], acc);
  acc = _mm256_fmadd_ps(_mm256_loadu_ps(p2 + at), t.w[6], acc);
  acc = _mm256_fmadd_ps(_mm256_loadu_ps(p2 + at + kLanes), t.w[7], acc);
  return _mm256_fmadd_ps(_mm256_loadu_ps(p2 + at + 2 * kLanes), t.w[8], acc);
}

// Output rows [first, end) (counted over images x height), converting each input row once into
// `rows` (three rows and a zero row).
template <bool kSigned, Out kOut>
QV_AVX2 void RunRows(const Run& r, int64_t first, int64_t end, float* rows) {
  const Geometry& g = *r.g;
  constexpr int64_t kOutBytes = kOut == Out::kFloat32 ? sizeof(float) : 1;
  const int64_t row_floats = g.RowFloats(), block_floats = g.BlockFloats(), c_count = g.channels;
  float* zero = rows + 3 * row_floats;
  std::memset(zero, 0, sizeof(float) * row_floats);
  int64_t held[3] = {-1, -1, -1};  // which input row (image x height + row) each slot holds
  Epilogue e;
  e.lo = _mm256_set1_ps(r.lo);
  e.hi = _mm256_set1_ps(r.hi);
  e.inverse = _mm256_set1_ps(r.inverse);
  const __m256 src_scale = _mm256_set1_ps(r.src_scale);
  e.type_lo = _mm256_set1_ps(kOut == Out::kUInt8 ? 0.f : -128.f);
  e.type_hi = _mm256_set1_ps(kOut == Out::kUInt8 ? 255.f : 127.f);
  for (int64_t row = first; row < end; ++row) {
    const int64_t image = row / g.height, oh = row % g.height;
    const float* in[3];
    for (int kh = 0; kh < 3; ++kh) {
      const int64_t ih = oh - 1 + kh;
      if (ih < 0 || ih >= g.height) {
        in[kh] = zero;
        continue;
      }
      const int64_t id = image * g.height + ih, slot = id % 3;
      float* converted = rows + slot * row_floats;
      if (held[slot] != id) {
        ConvertRow<kSigned>(r.src + id * g.width * c_count, g, converted);
        held[slot] = id;
      }
      in[kh] = converted;
    }
    char* out_row = r.dst + row * g.width * c_count * kOutBytes;
    for (int64_t c = 0; c < c_count; c += kLanes) {
      const float* p0 = in[0] + c / kLanes * block_floats;
      const float* p1 = in[1] + c / kLanes * block_floats;
      const float* p2 = in[2] + c / kLanes * block_floats;
      const float* t = r.taps + c;
      Taps w;
      for (int k = 0; k < kTaps; ++k) w.w[k] = _mm256_loadu_ps(t + k * c_count);
      e.scale = _mm256_mul_ps(src_scale, _mm256_loadu_ps(r.weight_scales + c));  // as oneDNN combines them
      e.bias = r.bias ? _mm256_loadu_ps(r.bias + c) : _mm256_setzero_ps();
      char* out = out_row + c * kOutBytes;
      const int64_t pixel_bytes = c_count * kOutBytes;
      int64_t ow = 0;
      // Four pixels at a time: four independent accumulations hide the FMA latency.
      for (; ow + 4 <= g.width; ow += 4) {
        const __m256 a0 = Accumulate(p0, p1, p2, ow, w), a1 = Accumulate(p0, p1, p2, ow + 1, w);
        const __m256 a2 = Accumulate(p0, p1, p2, ow + 2, w), a3 = Accumulate(p0, p1, p2, ow + 3, w);
        Store<kOut>(a0, e, out + ow * pixel_bytes);
        Store<kOut>(a1, e, out + (ow + 1) * pixel_bytes);
        Store<kOut>(a2, e, out + (ow + 2) * pixel_bytes);
        Store<kOut>(a3, e, out + (ow + 3) * pixel_bytes);
      }
      for (; ow < g.width; ++ow) Store<kOut>(Accumulate(p0, p1, p2, ow, w), e, out + ow * pixel_bytes);
    }
  }
}

using RowsFunction = void (*)(const Run&, int64_t, int64_t, float*);

template <bool kSigned>
RowsFunction Pick(Out out) {
  switch (out) {
    case Out::kUInt8: return RunRows<kSigned, Out::kUInt8>;
    case Out::kInt8: return RunRows<kSigned, Out::kInt8>;
    default: return RunRows<kSigned, Out::kFloat32>;
  }
}

class DepthwiseInt8Avx2Kernel : public Kernel {
 public:
  DepthwiseInt8Avx2Kernel(const Geometry& g, RowsFunction rows, std::shared_ptr<void> taps,
                          std::shared_ptr<void> weight_scales, std::shared_ptr<void> bias, float lo, float hi,
                          size_t src_scale_at, size_t dst_scale_at, float out_scale)
      : g_(g),
        rows_(rows),
        taps_(std::move(taps)),
        weight_scales_(std::move(weight_scales)),
        bias_(std::move(bias)),
        lo_(lo),
        hi_(hi),
        src_scale_at_(src_scale_at),
        dst_scale_at_(dst_scale_at),
        out_scale_(out_scale) {}

  std::string Implementation() const override { return "depthwise_3x3_int8:avx2"; }

  void Execute(const ExecArgs& args) const override {
    const auto* src = static_cast<const uint8_t*>(args.inputs[0]);
    auto* dst = static_cast<char*>(args.outputs[0]);
    float src_scale;
    std::memcpy(&src_scale, src + src_scale_at_, sizeof src_scale);
    if (out_scale_ > 0) std::memcpy(dst + dst_scale_at_, &out_scale_, sizeof out_scale_);
    const Run run{&g_,
                  src,
                  src_scale,
                  static_cast<const float*>(taps_.get()),
                  static_cast<const float*>(weight_scales_.get()),
                  static_cast<const float*>(bias_.get()),
                  lo_,
                  hi_,
                  out_scale_ > 0 ? 1.f / out_scale_ : 1.f,
                  dst};
    const int64_t rows = g_.images * g_.height;
    const int tasks = static_cast<int>(std::min<int64_t>(std::max(args.threads, 1), rows));
    ComputePool::Get().Run(tasks, tasks, [&](int t, int count) {
      thread_local ThreadBuffer t_rows;
      auto* converted = static_cast<float*>(t_rows.Get(sizeof(float) * 4 * g_.RowFloats()));
      rows_(run, rows * t / count, rows * (t + 1) / count, converted);
    });
  }

 private:
  const Geometry g_;
  const RowsFunction rows_;
  const std::shared_ptr<void> taps_;
  const std::shared_ptr<void> weight_scales_;
  const std::shared_ptr<void> bias_;
  const float lo_, hi_;
  const size_t src_scale_at_, dst_scale_at_;
  const float out_scale_;  // 0: a float32 output
};

// The fused post-ops as bounds on the value (none: unbounded), or nothing where they are not one ReLU
// or clip at most.
std::optional<std::pair<float, float>> Bounds(const std::vector<PostOp>& ops) {
  constexpr float kInfinity = std::numeric_limits<float>::infinity();
  if (ops.empty()) return std::make_pair(-kInfinity, kInfinity);
  if (ops.size() > 1) return std::nullopt;
  if (ops[0].kind == PostOp::kRelu) return std::make_pair(0.f, kInfinity);
  if (ops[0].kind == PostOp::kClip) return std::make_pair(ops[0].alpha, ops[0].beta);
  return std::nullopt;
}

bool Fits(const KernelRequest& req, const ConvolutionParams& p) {
  const Shape& x = req.inputs[0].type.shape;
  const std::vector<int64_t> one = {1, 1};
  if (x.size() != 4 || p.kernel != std::vector<int64_t>{3, 3} || p.stride != one || p.dilate != one ||
      p.pad != one)
    return false;
  const int64_t channels = x[1];
  if (p.num_group != channels || p.num_filter != channels || channels % kLanes != 0 ||
      req.inputs[1].type.shape != Shape{channels, 1, 3, 3})
    return false;
  if (!Bounds(p.post_ops)) return false;
  // oneDNN's view of the CPU, not the compiler's: __builtin_cpu_supports reads nothing in a library
  // built with zig's clang (the shipped wheel), whose runtime never fills in the CPU model.
  return !HasInt8DotProducts() && HasAvx2();
}

}  // namespace

KernelBuild TryDepthwiseInt8Avx2(const KernelRequest& req, const ConvolutionParams& p, const Int8Hints& h) {
  if (!Fits(req, p)) return {};
  const ValueInfo& data = req.inputs[0];
  const ValueInfo& weight = req.inputs[1];
  const Shape& x = data.type.shape;
  const Geometry g{x[0], x[2], x[3], x[1]};
  ConstantCache& constants = CpuConstants(req);

  // Weights quantized as for oneDNN (7 bits and a scale per channel: int8_support.h), then as floats
  // tap-major, [9][channels], 8 channels of a tap per vector.
  const Desc plain({g.channels, 1, 1, 3, 3}, memory::data_type::s8, memory::format_tag::goihw);
  const Int8Weights q = QuantizeWeights(constants, weight.constant, plain, plain, true, h.weight_levels);
  const Desc taps_key({kTaps, g.channels}, memory::data_type::f32, memory::format_tag::ab);
  auto taps = constants.GetDerived(weight.constant, taps_key, [&](const float*) {
    auto buffer = AllocateConstant(sizeof(float) * kTaps * g.channels);
    const auto* ints = static_cast<const int8_t*>(q.data.get());
    auto* floats = static_cast<float*>(buffer.get());
    for (int64_t c = 0; c < g.channels; ++c)
      for (int t = 0; t < kTaps; ++t) floats[t * g.channels + c] = ints[c * kTaps + t];
    return buffer;
  });
  std::shared_ptr<void> bias;
  if (!p.no_bias) {
    const Desc bias_desc({g.channels}, memory::data_type::f32, memory::format_tag::a);
    bias = constants.Get(req.inputs[2].constant, bias_desc, bias_desc);
  }

  const auto [lo, hi] = *Bounds(p.post_ops);

  const Int8Input in = Int8InputOf(data, h);
  const bool int8_out = h.out_type != DType::kFloat32;
  const Out out_kind = !int8_out ? Out::kFloat32 : h.out_type == DType::kUInt8 ? Out::kUInt8 : Out::kInt8;
  const Desc src(ToDims(x), in.type, memory::format_tag::nhwc);
  const Desc dst(ToDims(req.outputs[0].shape), DnnlType(h.out_type), memory::format_tag::nhwc);
  const Quantization out = int8_out ? Int8Output(h) : Quantization{};
  const RowsFunction rows = in.type == memory::data_type::s8 ? Pick<true>(out_kind) : Pick<false>(out_kind);

  KernelBuild build;
  AddRuntimeInput(build, 0, src, in.quant);
  AddOutput(build, dst, out);
  build.flops = MultiplyAddFlops(req.outputs[0].shape, weight.type.shape);
  build.kernel = std::make_unique<DepthwiseInt8Avx2Kernel>(g, rows, std::move(taps), q.scales, std::move(bias), lo, hi,
                                                          ScaleOffset(src), int8_out ? ScaleOffset(dst) : 0, out.scale);
  return build;
}

}  // namespace qv::cpu
