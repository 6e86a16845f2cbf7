#include "backends/cpu/kernels/planar_quantize.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "backends/cpu/kernels/vector_math.h"
#include "backends/cpu/runtime/compute_pool.h"

namespace qv::cpu {
namespace {

constexpr int kMaxChannels = 4;
constexpr int64_t kBlock = 256;  // pixels converted per plane before interleaving: 1 KB of bytes

template <int kChannels>
inline void Interleave(const uint8_t (*bytes)[kBlock], int64_t n, uint8_t* out) {
  for (int64_t i = 0; i < n; ++i)
    for (int c = 0; c < kChannels; ++c) out[i * kChannels + c] = bytes[c][i];
}

// `n` pixels of `channels` planes, `plane` floats apart from `x` on, into `out` interleaved. Written so
// that the compiler vectorizes it: the scaled value, clamped (NaN to `lo`, as oneDNN's JIT reorders
// do), plus 1.5 x 2^23 holds its integer rounded to nearest even in the low bits.
QV_VECTOR_FUNCTION(void, QuantizeBlock, (const float* x, int64_t plane, int channels, int64_t n, float inverse, float lo,
                   float hi, uint8_t* out), (x, plane, channels, n, inverse, lo, hi, out)) {
  constexpr float kRound = 12582912.f;
  alignas(64) uint8_t bytes[kMaxChannels][kBlock];
  for (int c = 0; c < channels; ++c) {
    const float* src = x + c * plane;
    for (int64_t i = 0; i < n; ++i) {
      const float scaled = src[i] * inverse;
      const float clamped = std::min(hi, lo < scaled ? scaled : lo) + kRound;
      int32_t bits;
      std::memcpy(&bits, &clamped, sizeof bits);
      bytes[c][i] = static_cast<uint8_t>(bits);
    }
  }
  switch (channels) {
    case 1: std::memcpy(out, bytes[0], n); break;
    case 2: Interleave<2>(bytes, n, out); break;
    case 3: Interleave<3>(bytes, n, out); break;
    default: Interleave<4>(bytes, n, out); break;
  }
}

class PlanarQuantizeKernel : public Kernel {
 public:
  PlanarQuantizeKernel(const Desc& to, float fixed_scale)
      : images_(to.get_dims()[0]),
        channels_(static_cast<int>(to.get_dims()[1])),
        pixels_(to.get_dims()[2] * to.get_dims()[3]),
        is_signed_(to.get_data_type() == dnnl::memory::data_type::s8),
        scale_offset_(ScaleOffset(to)),
        fixed_scale_(fixed_scale) {}

  void Execute(const ExecArgs& args) const override {
    char* out = static_cast<char*>(args.outputs[0]);
    if (fixed_scale_ > 0) std::memcpy(out + scale_offset_, &fixed_scale_, sizeof fixed_scale_);
    float scale;
    std::memcpy(&scale, out + scale_offset_, sizeof scale);
    const float inverse = 1.f / scale;
    const float lo = is_signed_ ? -128.f : 0.f, hi = is_signed_ ? 127.f : 255.f;
    const float* x = static_cast<const float*>(args.inputs[0]);
    auto* bytes = reinterpret_cast<uint8_t*>(out);
    const int64_t blocks_per_image = (pixels_ + kBlock - 1) / kBlock;
    ParallelFor(args.threads, images_ * blocks_per_image, [&](int64_t b) {
      const int64_t image = b / blocks_per_image, first = b % blocks_per_image * kBlock;
      const int64_t image_offset = image * channels_ * pixels_;
      QuantizeBlock(x + image_offset + first, pixels_, channels_, std::min(kBlock, pixels_ - first), inverse, lo,
                    hi, bytes + image_offset + first * channels_);
    });
  }

  // The body QuantizeBlock runs (QV_VECTOR_FUNCTION).
  std::string Implementation() const override {
    return std::string("planar_quantize:") + VectorIsaName(CpuVectorIsa());
  }

 private:
  int64_t images_;
  int channels_;
  int64_t pixels_;
  bool is_signed_;
  size_t scale_offset_;
  float fixed_scale_;  // 0: measured per run, written by the caller
};

}  // namespace

std::unique_ptr<Kernel> MakePlanarQuantizeKernel(const Desc& from, const Desc& to, const Quantization& to_quant) {
  using tag = dnnl::memory::format_tag;
  const dnnl::memory::dims dims = from.get_dims();
  if (dims.size() != 4 || dims[1] < 1 || dims[1] > kMaxChannels || !IsQuantized(to)) return nullptr;
  if (from != Desc(dims, dnnl::memory::data_type::f32, tag::nchw) || to != Desc(dims, to.get_data_type(), tag::nhwc))
    return nullptr;
  return std::make_unique<PlanarQuantizeKernel>(to, to_quant.scale);
}

}  // namespace qv::cpu
