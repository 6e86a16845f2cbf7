#include "backends/cpu/kernels/gemm_conv_int8_avx2.h"

#include "backends/cpu/kernels/int8_avx2_kernel.h"
#include "backends/cpu/kernels/int8_support.h"
#include "backends/cpu/runtime/constant_cache.h"
#include "backends/cpu/runtime/cpu_precision.h"

namespace qv::cpu {
namespace {

using dnnl::memory;

constexpr int64_t kLanes = 8;        // output channels per vector
constexpr int64_t kMaxVectors = 4;   // output channels per tile: 32
constexpr int64_t kBlock = kMaxVectors * kLanes;
constexpr int64_t kTilePixels = 3;   // 3 x 4 accumulators; the weights are read as memory operands
constexpr int64_t kMaxFirstLayerChannels = 4;
constexpr int64_t kMaxKernelRows = 11;  // AlexNet's 11x11 the largest
// The narrowest first-layer kernel row measured faster than oneDNN's kernel: MobileNets' 3x3 x 3
// channels (9 bytes in 3 groups, 25% of the products over zero weights), 20% faster; ResNets' 7x7 x 3
// (21 in 24) 15-20%. Narrower rows (one channel) waste more and stay on oneDNN.
constexpr int64_t kMinSpan = 9;

struct Geometry {
  int64_t images, in_h, in_w, channels, out_h, out_w, filters;
  int64_t kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w;

  // One kernel row of a patch: its pixels' channels, contiguous in channels-last data, read as groups
  // of 4 bytes; the bytes past Span() meet zero weights.
  int64_t Span() const { return kernel_w * channels; }
  int64_t Groups() const { return (Span() + 3) / 4; }
  // An input row with its padding columns (the value zero) and room for the last group's overrun.
  int64_t PaddedRowBytes() const { return (in_w + 2 * pad_w) * channels + 4; }
  int64_t Blocks() const { return (filters + kBlock - 1) / kBlock; }
  // The threads' work: output rows x blocks of 32 filters (7-row layers shared evenly by 2 threads).
  int64_t Units() const { return images * out_h * Blocks(); }
  // The kernel rows of one output row, and a row of zeros for padding rows.
  int64_t BufferBytes() const { return (kernel_h + 1) * PaddedRowBytes(); }
  // The weights: per block of 32 filters, [kernel_h][Groups()][32][4] int8 (each filter's 4 bytes of a
  // group next to each other, as vpmaddubsw pairs them; a last block of fewer filters padded), so that
  // a tile reads its block's weights in order; then at CompensationAt() each filter's 128 x its weight
  // sum. (Groups of all the filters side by side put 1280 filters' groups 5 KB apart, and the 80 groups
  // of a 320-channel 1x1 in the same few L1 sets.)
  static constexpr int64_t kGroupBytes = kBlock * 4;
  int64_t BlockBytes() const { return kernel_h * Groups() * kGroupBytes; }
  size_t CompensationAt() const { return (Blocks() * BlockBytes() + 63) / 64 * 64; }
};

using Run = Int8Run<Geometry>;

// The kernel rows of output row `oh` of `image`, as pointers to input rows copied with their padding
// columns into `buffer` (int8 data shifted into uint8: the sign bit flipped, +128), or to the row of
// zeros for padding rows.
template <bool kSigned>
QV_AVX2 void PadRows(const Run& r, int64_t image, int64_t oh, uint8_t* buffer, const uint8_t** rows) {
  const Geometry& g = *r.g;
  const uint8_t zero = kSigned ? 0x80 : 0;
  const __m256i flips = _mm256_set1_epi8(static_cast<char>(zero));
  const int64_t padded = g.PaddedRowBytes(), row_bytes = g.in_w * g.channels, pad_bytes = g.pad_w * g.channels;
  const uint8_t* zeros = buffer + g.kernel_h * padded;  // filled by RunUnits
  for (int64_t kh = 0; kh < g.kernel_h; ++kh) {
    const int64_t ih = oh * g.stride_h - g.pad_h + kh;
    if (ih < 0 || ih >= g.in_h) {
      rows[kh] = zeros;
      continue;
    }
    uint8_t* out = buffer + kh * padded;
    const uint8_t* in = r.src + (image * g.in_h + ih) * row_bytes;
    std::memset(out, zero, pad_bytes);
    int64_t i = 0;
    for (; i + 32 <= row_bytes; i += 32)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + pad_bytes + i),
                          _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i)), flips));
    for (; i < row_bytes; ++i) out[pad_bytes + i] = in[i] ^ zero;
    std::memset(out + pad_bytes + row_bytes, zero, padded - pad_bytes - row_bytes);
    rows[kh] = out;
  }
}

// Output pixels ow .. ow + kPixels - 1, filters f0 .. f0 + 8 kVectors - 1 (f0 a block's first): each
// 4-byte group of each kernel row broadcast and multiplied by the group's weights of 8 filters
// (vpmaddubsw: 16-bit sums of two products, exact with 7-bit weights; vpmaddwd by ones: 32-bit sums of
// four), then finished with their epilogue (which takes the int8 data's shift back out) and stored.
template <int64_t kPixels, int64_t kVectors, Int8Out kOut>
QV_AVX2 inline __attribute__((always_inline)) void Tile(const Run& r, const uint8_t* const* rows, int64_t ow,
                                                        int64_t f0, const Int8Epilogue* es, char* out_row) {
  const Geometry& g = *r.g;
  const int64_t groups = g.Groups(), group_stride = Geometry::kGroupBytes, pixel_step = g.stride_w * g.channels;
  const auto* w = static_cast<const int8_t*>(r.weights) + f0 / kBlock * g.BlockBytes();
  const __m256i ones = _mm256_set1_epi16(1);
  __m256i acc[kPixels][kVectors];
  for (int64_t p = 0; p < kPixels; ++p)
    for (int64_t v = 0; v < kVectors; ++v) acc[p][v] = _mm256_setzero_si256();
  for (int64_t kh = 0; kh < g.kernel_h; ++kh) {
    const uint8_t* a = rows[kh] + ow * pixel_step;
    for (int64_t k = 0; k < groups; ++k, w += group_stride, a += 4) {
      __m256i wv[kVectors];
      for (int64_t v = 0; v < kVectors; ++v) wv[v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + v * 32));
      for (int64_t p = 0; p < kPixels; ++p) {
        int32_t group;
        std::memcpy(&group, a + p * pixel_step, sizeof group);
        const __m256i x = _mm256_set1_epi32(group);
        for (int64_t v = 0; v < kVectors; ++v)
          acc[p][v] = _mm256_add_epi32(acc[p][v], _mm256_madd_epi16(_mm256_maddubs_epi16(x, wv[v]), ones));
      }
    }
  }
  constexpr int64_t kOutBytes = Int8OutBytes(kOut);
  for (int64_t p = 0; p < kPixels; ++p) {
    __m256 v[kVectors];
    for (int64_t i = 0; i < kVectors; ++i) v[i] = FinishInt8(_mm256_cvtepi32_ps(acc[p][i]), es[i]);
    StoreInt8Vectors<kOut, kVectors>(v, out_row + ((ow + p) * g.filters + f0) * kOutBytes);
  }
}

// One output row's filters f0 .. f0 + 8 kVectors - 1, their epilogues set up once for the row: the
// int8 data's shift (the compensation, 128 x each filter's weight sum) folded into the bias.
template <int64_t kVectors, bool kSigned, Int8Out kOut>
QV_AVX2 void Columns(const Run& r, const uint8_t* const* rows, int64_t f0, __m256 src_scale, const Int8Epilogue& e,
                     char* out_row) {
  static_assert(kTilePixels == 3, "the remainder is one tile of 1 or 2 pixels");
  const auto* compensation =
      reinterpret_cast<const int32_t*>(static_cast<const char*>(r.weights) + r.g->CompensationAt());
  Int8Epilogue es[kVectors];
  for (int64_t v = 0; v < kVectors; ++v) {
    const int64_t f = f0 + v * kLanes;
    es[v] = e;
    SetInt8Channels(es[v], src_scale, r.weight_scales + f, r.bias ? r.bias + f : nullptr);
    if constexpr (kSigned) {
      const __m256 shift = _mm256_cvtepi32_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(compensation + f)));
      es[v].bias = _mm256_fnmadd_ps(shift, es[v].scale, es[v].bias);
    }
  }
  int64_t ow = 0;
  for (; ow + kTilePixels <= r.g->out_w; ow += kTilePixels)
    Tile<kTilePixels, kVectors, kOut>(r, rows, ow, f0, es, out_row);
  if (r.g->out_w - ow == 2) Tile<2, kVectors, kOut>(r, rows, ow, f0, es, out_row);
  if (r.g->out_w - ow == 1) Tile<1, kVectors, kOut>(r, rows, ow, f0, es, out_row);
}

// Units [first, end) (Geometry::Units, row-major), each output row's input rows padded in `buffer`
// once per run of units.
template <bool kSigned, Int8Out kOut>
QV_AVX2 void RunUnits(const Run& r, int64_t first, int64_t end, void* buffer) {
  const Geometry& g = *r.g;
  const uint8_t* rows[kMaxKernelRows];
  int64_t padded = -1;  // the output row whose input rows `rows` holds
  std::memset(static_cast<uint8_t*>(buffer) + g.kernel_h * g.PaddedRowBytes(), kSigned ? 0x80 : 0,
              g.PaddedRowBytes());  // the row of zeros (shifted like the data) for padding rows
  const Int8Epilogue e = MakeInt8Epilogue(kOut, r.lo, r.hi, r.inverse);
  const __m256 src_scale = _mm256_set1_ps(r.src_scale);
  for (int64_t unit = first; unit < end; ++unit) {
    const int64_t row = unit / g.Blocks(), f0 = unit % g.Blocks() * kBlock;
    if (row != padded) {
      PadRows<kSigned>(r, row / g.out_h, row % g.out_h, static_cast<uint8_t*>(buffer), rows);
      padded = row;
    }
    char* out_row = r.dst + row * g.out_w * g.filters * Int8OutBytes(kOut);
    switch (std::min(kMaxVectors, (g.filters - f0) / kLanes)) {
      case 4: Columns<4, kSigned, kOut>(r, rows, f0, src_scale, e, out_row); break;
      case 3: Columns<3, kSigned, kOut>(r, rows, f0, src_scale, e, out_row); break;
      case 2: Columns<2, kSigned, kOut>(r, rows, f0, src_scale, e, out_row); break;
      default: Columns<1, kSigned, kOut>(r, rows, f0, src_scale, e, out_row); break;
    }
  }
}

template <bool kSigned>
Int8UnitsKernel<Geometry>::Units Pick(Int8Out out) {
  switch (out) {
    case Int8Out::kUInt8: return RunUnits<kSigned, Int8Out::kUInt8>;
    case Int8Out::kInt8: return RunUnits<kSigned, Int8Out::kInt8>;
    default: return RunUnits<kSigned, Int8Out::kFloat32>;
  }
}

bool IsFirstLayer(const ConvolutionParams& p, int64_t channels) {
  return channels <= kMaxFirstLayerChannels && p.kernel[0] <= kMaxKernelRows && p.kernel[1] * channels >= kMinSpan;
}

// MobileNetV2's 1x1 expansions (and its first 32 -> 32) ran 10-35% faster than on oneDNN; its
// projections (more input channels than output ones) and the classifier's 1x1 over one pixel ran
// within +-10% of it and stay there.
bool IsExpansion(const ConvolutionParams& p, int64_t channels) {
  return p.kernel == std::vector<int64_t>{1, 1} && p.stride == std::vector<int64_t>{1, 1} &&
         p.pad == std::vector<int64_t>{0, 0} && channels % 4 == 0 && channels <= p.num_filter;
}

bool Fits(const KernelRequest& req, const ConvolutionParams& p) {
  const Shape& x = req.inputs[0].type.shape;
  if (x.size() != 4 || p.kernel.size() != 2 || p.dilate != std::vector<int64_t>{1, 1} || p.num_group != 1 ||
      p.num_filter % kLanes != 0 || !Int8OutputBounds(p.post_ops) || !(IsFirstLayer(p, x[1]) || IsExpansion(p, x[1])))
    return false;
  // oneDNN's view of the CPU (depthwise_int8_avx2.cc says why).
  return !HasInt8DotProducts() && HasAvx2();
}

}  // namespace

KernelBuild TryGemmConvInt8Avx2(const KernelRequest& req, const ConvolutionParams& p, const Int8Hints& h) {
  if (!Fits(req, p)) return {};
  const Shape& x = req.inputs[0].type.shape;
  const Shape& y = req.outputs[0].shape;
  const Geometry g{x[0],        x[2],        x[3],        x[1],        y[2],     y[3],    p.num_filter,
                   p.kernel[0], p.kernel[1], p.stride[0], p.stride[1], p.pad[0], p.pad[1]};
  ConstantCache& constants = CpuConstants(req);
  const ConstantPtr& weight = req.inputs[1].constant;

  // Weights quantized as for oneDNN (7 bits and a scale per filter: int8_support.h), then in the
  // kernel rows' byte order (column, channel), grouped by 4.
  const Desc plain({g.filters, g.channels, g.kernel_h, g.kernel_w}, memory::data_type::s8, memory::format_tag::oihw);
  const Int8Weights q = QuantizeWeights(constants, weight, plain, plain, true, h.weight_levels);
  const Desc key({g.Blocks(), g.kernel_h * g.Groups(), kBlock, 4}, memory::data_type::s8, memory::format_tag::abcd);
  auto packed = constants.GetDerived(weight, key, [&](const float*) {
    auto buffer = AllocateConstant(g.CompensationAt() + sizeof(int32_t) * g.filters);
    auto* out = static_cast<int8_t*>(buffer.get());
    std::memset(out, 0, g.CompensationAt());
    auto* compensation = reinterpret_cast<int32_t*>(out + g.CompensationAt());
    const auto* ints = static_cast<const int8_t*>(q.data.get());
    for (int64_t f = 0; f < g.filters; ++f) {
      int32_t sum = 0;
      for (int64_t c = 0; c < g.channels; ++c)
        for (int64_t kh = 0; kh < g.kernel_h; ++kh)
          for (int64_t kw = 0; kw < g.kernel_w; ++kw) {
            const int8_t value = ints[((f * g.channels + c) * g.kernel_h + kh) * g.kernel_w + kw];
            const int64_t k = kw * g.channels + c;
            out[f / kBlock * g.BlockBytes() + (kh * g.Groups() + k / 4) * Geometry::kGroupBytes + f % kBlock * 4 +
                k % 4] = value;
            sum += value;
          }
      compensation[f] = 128 * sum;
    }
    return buffer;
  });

  KernelBuild build;
  const Int8Avx2Io io = DeclareInt8Avx2Io(req, p, h, build);
  const auto rows = io.signed_data ? Pick<true>(io.out) : Pick<false>(io.out);
  build.kernel = std::make_unique<Int8UnitsKernel<Geometry>>("gemm_conv_int8:avx2", g, rows, io, std::move(packed), q.scales);
  return build;
}

}  // namespace qv::cpu
