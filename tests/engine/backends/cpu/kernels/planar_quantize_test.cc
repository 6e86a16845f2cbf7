// The conversion of float NCHW images to interleaved int8 (backends/cpu/kernels/planar_quantize.h)
// against oneDNN's reorder of the same pair, byte for byte: 1-4 channels, int8 and uint8, images whose
// pixel counts leave a short last block, two images, halfway values (rounded to even), values past
// the type's range and infinities; with the scale fixed and measured per run; and the layouts it
// leaves to oneDNN.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "backends/cpu/kernels/dnnl_kernel.h"
#include "backends/cpu/kernels/planar_quantize.h"
#include "backends/cpu/kernels/vector_math.h"

namespace {

using qv::cpu::Desc;
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

std::vector<float> Image(const dnnl::memory::dims& dims, float scale, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> spread(-300.f * scale, 300.f * scale);
  std::vector<float> x(dims[0] * dims[1] * dims[2] * dims[3]);
  for (float& v : x) v = spread(rng);
  // Halfway between two steps, both parities, and what saturates.
  const float special[] = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 126.5f, 127.5f, 254.5f, 255.5f, -128.5f, -129.f, 1e9f};
  for (size_t i = 0; i < std::size(special) && 3 * i < x.size(); ++i) x[3 * i] = special[i] * scale;
  x.back() = std::numeric_limits<float>::infinity();
  x[x.size() / 2] = -std::numeric_limits<float>::infinity();
  return x;
}

// The kernel's name: the conversion and the instruction set its loop was compiled for.
std::string PlanarName() { return std::string("planar_quantize:") + qv::cpu::VectorIsaName(qv::cpu::CpuVectorIsa()); }

// oneDNN's reorder of `x` (NCHW float) to NHWC of `type` with destination scale `scale`.
std::vector<uint8_t> DnnlQuantize(const std::vector<float>& x, const dnnl::memory::dims& dims, dt type, float scale) {
  const Desc from(dims, dt::f32, tag::nchw), to(dims, type, tag::nhwc);
  dnnl::primitive_attr attr;
  attr.set_scales_mask(DNNL_ARG_DST, 0);
  dnnl::engine& engine = qv::cpu::CpuEngine();
  dnnl::memory src(from, engine, const_cast<float*>(x.data()));
  std::vector<uint8_t> out(to.get_size());
  dnnl::memory dst(to, engine, out.data());
  dnnl::memory scales(qv::cpu::ScaleDesc(), engine, &scale);
  dnnl::stream stream(engine);
  dnnl::reorder(dnnl::reorder::primitive_desc(engine, from, engine, to, attr))
      .execute(stream, {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}, {DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST, scales}});
  stream.wait();
  return out;
}

struct Converted {
  std::vector<uint8_t> bytes;
  float scale;
  std::string implementation;
};

Converted Convert(const std::vector<float>& x, const dnnl::memory::dims& dims, dt type, const qv::cpu::Quantization& q) {
  const Desc from(dims, dt::f32, tag::nchw), to(dims, type, tag::nhwc);
  const auto kernel = qv::cpu::MakeReorderKernel(from, to, q);
  const size_t offset = qv::cpu::ScaleOffset(to);
  std::vector<uint8_t> buffer(offset + sizeof(float), 0xAB);
  qv::ExecArgs args;
  args.inputs = {const_cast<float*>(x.data())};
  args.outputs = {buffer.data()};
  args.threads = 2;
  kernel->Execute(args);
  Converted c{{buffer.begin(), buffer.begin() + to.get_size()}, 0, kernel->Implementation()};
  std::memcpy(&c.scale, buffer.data() + offset, sizeof c.scale);
  return c;
}

}  // namespace

TEST_CASE("Planar quantize: float NCHW to int8 NHWC as oneDNN's reorder, byte for byte", "[cpu][int8]") {
  unsigned seed = 1;
  for (dt type : {dt::u8, dt::s8})
    for (const dnnl::memory::dims& dims :
         {dnnl::memory::dims{1, 3, 7, 9}, {2, 3, 23, 37}, {1, 1, 16, 17}, {1, 2, 5, 61}, {2, 4, 19, 19}, {1, 3, 224, 224}}) {
      const float scale = 0.0371f;
      const std::vector<float> x = Image(dims, scale, seed++);
      INFO((type == dt::u8 ? "u8 " : "s8 ") << dims[0] << "x" << dims[1] << "x" << dims[2] << "x" << dims[3]);
      const Converted fixed = Convert(x, dims, type, {scale, 0});
      CHECK(fixed.implementation == PlanarName());
      CHECK(fixed.scale == scale);
      CHECK(fixed.bytes == DnnlQuantize(x, dims, type, scale));

      // The scale measured on the data: max |value| / levels, infinities left out of this case.
      std::vector<float> finite = x;
      for (float& v : finite)
        if (std::isinf(v)) v = 0;
      const Converted measured = Convert(finite, dims, type, {0, 127});
      float largest = 0;
      for (float v : finite) largest = std::max(largest, std::fabs(v));
      CHECK(measured.implementation == PlanarName());
      CHECK(measured.scale == largest / 127);
      CHECK(measured.bytes == DnnlQuantize(finite, dims, type, largest / 127));
    }
}

TEST_CASE("Planar quantize: other layouts and channel counts stay with oneDNN's reorder", "[cpu][int8]") {
  const dnnl::memory::dims image{1, 3, 8, 8}, wide{1, 5, 8, 8};
  const qv::cpu::Quantization q{0.5f, 0};
  CHECK(qv::cpu::MakePlanarQuantizeKernel(Desc(wide, dt::f32, tag::nchw), Desc(wide, dt::u8, tag::nhwc), q) == nullptr);
  CHECK(qv::cpu::MakePlanarQuantizeKernel(Desc(image, dt::f32, tag::nchw), Desc(image, dt::u8, tag::nchw), q) == nullptr);
  CHECK(qv::cpu::MakePlanarQuantizeKernel(Desc(image, dt::f32, tag::nhwc), Desc(image, dt::u8, tag::nhwc), q) == nullptr);
  CHECK(qv::cpu::MakePlanarQuantizeKernel(Desc(image, dt::f32, tag::nchw), Desc(image, dt::f32, tag::nhwc), q) == nullptr);
  CHECK(qv::cpu::MakePlanarQuantizeKernel(Desc({1, 3, 8}, dt::f32, tag::abc), Desc({1, 3, 8}, dt::u8, tag::acb), q) ==
        nullptr);
  const auto fallback = qv::cpu::MakeReorderKernel(Desc(wide, dt::f32, tag::nchw), Desc(wide, dt::u8, tag::nhwc), q);
  CHECK(fallback->Implementation().rfind("planar_quantize", 0) != 0);
}
