#include "backends/cpu/kernels/depthwise_int8_avx2.h"

#include "backends/cpu/kernels/int8_avx2_kernel.h"
#include "backends/cpu/kernels/int8_support.h"
#include "backends/cpu/runtime/constant_cache.h"
#include "backends/cpu/runtime/cpu_precision.h"

namespace qv::cpu {
namespace {

using dnnl::memory;

constexpr int64_t kLanes = 8;  // channels per vector
constexpr int kTaps = 9;

struct Geometry {
  int64_t images, in_h, in_w, out_h, out_w, channels, stride;
  // A converted input row: per block of 8 channels, the row's pixels with a zero pixel each side.
  int64_t BlockFloats() const { return (in_w + 2) * kLanes; }
  int64_t RowFloats() const { return BlockFloats() * (channels / kLanes); }
  int64_t Units() const { return images * out_h; }  // the threads share output rows
  // Three converted rows and a zero row.
  int64_t BufferBytes() const { return sizeof(float) * 4 * RowFloats(); }
};

// The weights: float32 taps, [9][channels].
using Run = Int8Run<Geometry>;

// Row `row` of image data as float32 blocks (Geometry::RowFloats), block by block: the row's bytes stay
// in L1 while each block is written in order.
template <bool kSigned>
QV_AVX2 void ConvertRow(const uint8_t* row, const Geometry& g, float* out) {
  // Locals: the intrinsics' stores may alias anything, which would make the compiler reload `g`.
  const int64_t blocks = g.channels / kLanes, width = g.in_w, channels = g.channels, block_floats = g.BlockFloats();
  for (int64_t b = 0; b < blocks; ++b) {
    float* block = out + b * block_floats;
    const uint8_t* in = row + b * kLanes;
    _mm256_storeu_ps(block, _mm256_setzero_ps());
    for (int64_t w = 0; w < width; ++w, in += channels) {
      const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(in));
      const __m256i ints = kSigned ? _mm256_cvtepi8_epi32(bytes) : _mm256_cvtepu8_epi32(bytes);
      _mm256_storeu_ps(block + (w + 1) * kLanes, _mm256_cvtepi32_ps(ints));
    }
    _mm256_storeu_ps(block + (width + 1) * kLanes, _mm256_setzero_ps());
  }
}

struct Taps {
  __m256 w[kTaps];
};

// Output pixel `ow` of 8 channels: the converted pixels s ow .. s ow + 2 (the zero pixel first; s the
// stride) of each of the three rows, times the taps.
template <int64_t kStride>
QV_AVX2 inline __attribute__((always_inline)) __m256 Accumulate(const float* p0, const float* p1, const float* p2,
                                                                int64_t ow, const Taps& t) {
  const int64_t at = ow * kStride * kLanes;
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

// Output rows [first, end) (counted over images x output height), converting each input row once into
// `buffer` (Geometry::BufferBytes): the three slots hold input rows by their index modulo 3, so the
// rows a stride-2 output row shares with the one before stay converted too.
template <int64_t kStride, bool kSigned, Int8Out kOut>
QV_AVX2 void RunRows(const Run& r, int64_t first, int64_t end, void* buffer) {
  const Geometry& g = *r.g;
  constexpr int64_t kOutBytes = Int8OutBytes(kOut);
  auto* rows = static_cast<float*>(buffer);
  const int64_t row_floats = g.RowFloats(), block_floats = g.BlockFloats(), c_count = g.channels;
  float* zero = rows + 3 * row_floats;
  std::memset(zero, 0, sizeof(float) * row_floats);
  int64_t held[3] = {-1, -1, -1};  // which input row (image x height + row) each slot holds
  Int8Epilogue e = MakeInt8Epilogue(kOut, r.lo, r.hi, r.inverse);
  const __m256 src_scale = _mm256_set1_ps(r.src_scale);
  for (int64_t row = first; row < end; ++row) {
    const int64_t image = row / g.out_h, oh = row % g.out_h;
    const float* in[3];
    for (int kh = 0; kh < 3; ++kh) {
      const int64_t ih = oh * kStride - 1 + kh;
      if (ih < 0 || ih >= g.in_h) {
        in[kh] = zero;
        continue;
      }
      const int64_t id = image * g.in_h + ih, slot = id % 3;
      float* converted = rows + slot * row_floats;
      if (held[slot] != id) {
        ConvertRow<kSigned>(r.src + id * g.in_w * c_count, g, converted);
        held[slot] = id;
      }
      in[kh] = converted;
    }
    char* out_row = r.dst + row * g.out_w * c_count * kOutBytes;
    for (int64_t c = 0; c < c_count; c += kLanes) {
      const float* p0 = in[0] + c / kLanes * block_floats;
      const float* p1 = in[1] + c / kLanes * block_floats;
      const float* p2 = in[2] + c / kLanes * block_floats;
      const float* t = static_cast<const float*>(r.weights) + c;
      Taps w;
      for (int k = 0; k < kTaps; ++k) w.w[k] = _mm256_loadu_ps(t + k * c_count);
      SetInt8Channels(e, src_scale, r.weight_scales + c, r.bias ? r.bias + c : nullptr);
      char* out = out_row + c * kOutBytes;
      const int64_t pixel_bytes = c_count * kOutBytes;
      int64_t ow = 0;
      // Four pixels at a time: four independent accumulations hide the FMA latency.
      for (; ow + 4 <= g.out_w; ow += 4) {
        __m256 v[4];
        for (int64_t i = 0; i < 4; ++i) v[i] = FinishInt8(Accumulate<kStride>(p0, p1, p2, ow + i, w), e);
        StoreInt8Strided4<kOut>(v, out + ow * pixel_bytes, pixel_bytes);
      }
      for (; ow < g.out_w; ++ow)
        StoreInt8Output<kOut>(Accumulate<kStride>(p0, p1, p2, ow, w), e, out + ow * pixel_bytes);
    }
  }
}

template <int64_t kStride, bool kSigned>
Int8UnitsKernel<Geometry>::Units Pick(Int8Out out) {
  switch (out) {
    case Int8Out::kUInt8: return RunRows<kStride, kSigned, Int8Out::kUInt8>;
    case Int8Out::kInt8: return RunRows<kStride, kSigned, Int8Out::kInt8>;
    default: return RunRows<kStride, kSigned, Int8Out::kFloat32>;
  }
}

template <int64_t kStride>
Int8UnitsKernel<Geometry>::Units Pick(bool signed_data, Int8Out out) {
  return signed_data ? Pick<kStride, true>(out) : Pick<kStride, false>(out);
}

bool Fits(const KernelRequest& req, const ConvolutionParams& p) {
  const Shape& x = req.inputs[0].type.shape;
  const std::vector<int64_t> one = {1, 1};
  if (x.size() != 4 || p.kernel != std::vector<int64_t>{3, 3} ||
      (p.stride != one && p.stride != std::vector<int64_t>{2, 2}) || p.dilate != one || p.pad != one)
    return false;
  const int64_t channels = x[1];
  if (p.num_group != channels || p.num_filter != channels || channels % kLanes != 0 ||
      req.inputs[1].type.shape != Shape{channels, 1, 3, 3})
    return false;
  if (!Int8OutputBounds(p.post_ops)) return false;
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
  const Shape& y = req.outputs[0].shape;
  const Geometry g{x[0], x[2], x[3], y[2], y[3], x[1], p.stride[0]};
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
  KernelBuild build;
  const Int8Avx2Io io = DeclareInt8Avx2Io(req, p, h, build);
  const auto rows = g.stride == 1 ? Pick<1>(io.signed_data, io.out) : Pick<2>(io.signed_data, io.out);
  build.kernel = std::make_unique<Int8UnitsKernel<Geometry>>("depthwise_3x3_int8:avx2", g, rows, io, std::move(taps),
                                                            q.scales);
  return build;
}

}  // namespace qv::cpu
