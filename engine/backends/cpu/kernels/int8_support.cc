#include "backends/cpu/kernels/int8_support.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "backends/cpu/runtime/cpu_precision.h"

namespace qv::cpu {
namespace {

// How weights become integers (int8_support.h, QuantizeWeights): max |w| is `levels` steps, each
// rounded integer then multiplied by `factor`.
struct WeightGrid {
  float levels;
  int factor;
};

WeightGrid Int8WeightGrid(float model_levels, const Desc& plain, const Desc& packed) {
  if (HasInt8DotProducts()) return {model_levels, 1};
  // Every weight 2: the packed layout's first element is the tensor's first, 1 where the reorder halves.
  const std::vector<int8_t> twos(plain.get_size(), 2);
  const auto reordered = ReorderConstant(twos.data(), plain, packed);
  return {63.f, *static_cast<const int8_t*>(reordered.get()) == 1 ? 2 : 1};
}

}  // namespace

dnnl::memory::data_type DnnlType(DType type) {
  switch (type) {
    case DType::kUInt8: return dnnl::memory::data_type::u8;
    case DType::kInt8: return dnnl::memory::data_type::s8;
    default: return dnnl::memory::data_type::f32;
  }
}

Int8Input Int8InputOf(const ValueInfo& data, const Int8Hints& hints) {
  const Desc& desc = DescOf(data);
  if (IsQuantized(desc)) return {desc.get_data_type(), QuantizationOf(data)};
  const float scale = hints.in_range ? Int8Hints::Step(*hints.in_range, hints.in_levels) : 0.f;
  return {DnnlType(hints.in_type), {scale, hints.in_levels}};
}

Quantization Int8Output(const Int8Hints& hints) {
  const float levels = Int8Hints::DataLevels(hints.out_type);
  return {Int8Hints::Step(hints.out_range, levels), levels};
}

Int8Weights QuantizeWeights(ConstantCache& cache, const ConstantPtr& weight, const Desc& plain, const Desc& packed,
                            bool channelwise, float model_levels) {
  const Shape& shape = weight->type().shape;  // MXNet's (output channels, ...), whatever `plain` groups
  const int64_t channels = shape[0];
  const int64_t count = ElementCount(shape);
  const int64_t scale_count = channelwise ? channels : 1;
  const size_t scales_at = (packed.get_size() + 63) / 64 * 64;
  auto data = cache.GetDerived(weight, packed, [&](const float* w) {
    const WeightGrid grid = Int8WeightGrid(model_levels, plain, packed);
    const int64_t per_scale = count / scale_count;
    std::vector<float> scales(static_cast<size_t>(scale_count));
    std::vector<int8_t> q(static_cast<size_t>(count));
    for (int64_t s = 0; s < scale_count; ++s) {
      const float* begin = w + s * per_scale;
      float largest = 0;
      for (int64_t i = 0; i < per_scale; ++i) largest = std::max(largest, std::fabs(begin[i]));
      // MXNet multiplies by levels / max |w|; the kernel multiplies back by its inverse.
      const float inverse = largest > 0 ? grid.levels / largest : 1.f;
      scales[s] = 1.f / (inverse * static_cast<float>(grid.factor));
      // Round to nearest even, saturating, as oneDNN's reorders (MXNet's quantizer) do.
      for (int64_t i = 0; i < per_scale; ++i)
        q[s * per_scale + i] = static_cast<int8_t>(
            std::clamp(std::nearbyint(begin[i] * inverse), -128.f, 127.f) * static_cast<float>(grid.factor));
    }
    auto reordered = ReorderConstant(q.data(), plain, packed);
    auto buffer = AllocateConstant(scales_at + scales.size() * sizeof(float));
    std::memcpy(buffer.get(), reordered.get(), packed.get_size());
    std::memcpy(static_cast<char*>(buffer.get()) + scales_at, scales.data(), scales.size() * sizeof(float));
    return buffer;
  });
  return {data, std::shared_ptr<void>(data, static_cast<char*>(data.get()) + scales_at), scale_count};
}

bool Int8ChannelwiseWeights(const Int8Hints& hints) { return hints.channelwise || !HasInt8DotProducts(); }

Int8Args MakeInt8Args(const Desc& src, const Desc& dst, const Desc& weights, const Int8Weights& w,
                      std::shared_ptr<void> bias, const Desc& bias_desc, const Quantization* out) {
  Int8Args a;
  a.args[DNNL_ARG_SRC] = {ArgSource::kInput, 0, nullptr, src};
  a.args[DNNL_ARG_DST] = {ArgSource::kOutput, 0, nullptr, dst};
  a.args[DNNL_ARG_WEIGHTS] = {ArgSource::kConstant, 0, w.data, weights};
  if (bias) a.args[DNNL_ARG_BIAS] = {ArgSource::kConstant, 0, std::move(bias), bias_desc};
  a.args[DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC] = {ArgSource::kInputScale, 0, nullptr, ScaleDesc(), ScaleOffset(src)};
  a.args[DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS] = {ArgSource::kConstant, 0, w.scales, ScaleDesc(w.scale_count)};
  if (out) {
    a.args[DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST] = {ArgSource::kOutputScale, 0, nullptr, ScaleDesc(), ScaleOffset(dst)};
    a.writes.push_back({0, ScaleOffset(dst), out->scale});
  }
  return a;
}

}  // namespace qv::cpu
