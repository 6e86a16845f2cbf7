// What the CPU's int8 kernels (convolution, inner product) share: where their data's scale comes
// from, and weights quantized once per cached op.
#pragma once

#include "backends/cpu/constant_cache.h"
#include "ops/int8_hints.h"

namespace qv::cpu {

dnnl::memory::data_type DnnlType(DType type);

// The data input as an int8 kernel reads it: a producer's int8 tensor as it is, else float data
// quantized as the hints say (into a fixed scale, or one measured per run).
struct Int8Input {
  dnnl::memory::data_type type;
  Quantization quant;
};
Int8Input Int8InputOf(const ValueInfo& data, const Int8Hints& hints);

// The output's quantization (hints.out_type int8 or uint8).
Quantization Int8Output(const Int8Hints& hints);

// How a kernel's weights become integers: max |w| (per output channel or per tensor) is `levels` steps,
// each rounded integer then multiplied by `factor`.
//
// With int8 dot products (HasInt8DotProducts) these are the model's levels, as MXNet quantizes. Without
// them oneDNN multiplies u8 data (s8 data shifted by +128 into u8) by s8 weights with vpmaddubsw, which
// adds each two neighbouring products into 16 bits with saturation: 255 x 127 x 2 = 64770 does not fit
// in 32767. oneDNN leaves avoiding that to the caller (its guide, "Nuances of int8 computations"),
// except in convolutions on s8 data, whose weights its reorder halves and whose kernels multiply the
// result back (scale_adjust 0.5 in every x64 convolution). So there the weights get 7 bits, 63 levels
// (255 x 63 x 2 = 32130 fits): the integers as they are for an inner product or a convolution on u8
// data, doubled (even, at most 126, which oneDNN halves exactly) for a convolution on s8 data. The
// products are then exact again, at half the weights' resolution.
struct WeightGrid {
  float levels;
  int factor;
};
WeightGrid Int8WeightGrid(float model_levels, bool convolution_on_s8_data);

// `weight` (float32, its output channels on axis 0) as int8 in `packed` (a primitive's weights
// descriptor; `plain` is the same tensor row-major in int8) on `grid`, with the scales that undo the
// quantization: per output channel or one for the tensor, each max |w| / (levels x factor). `scales`
// points into the same cached buffer.
struct Int8Weights {
  std::shared_ptr<void> data;
  std::shared_ptr<void> scales;
  int64_t scale_count;
};
Int8Weights QuantizeWeights(ConstantCache& cache, const ConstantPtr& weight, const Desc& plain, const Desc& packed,
                            bool channelwise, WeightGrid grid);

// The arguments of an int8 convolution or inner product: data from input 0 with the scale stored
// after it, output 0 (an int8 output's fixed scale `out` written before the primitive reads it), the
// weights with their scales, and a float32 bias (null: none).
struct Int8Args {
  std::unordered_map<int, ArgSource> args;
  std::vector<ScaleWrite> writes;
};
Int8Args MakeInt8Args(const Desc& src, const Desc& dst, const Desc& weights, const Int8Weights& w,
                      std::shared_ptr<void> bias, const Desc& bias_desc, const Quantization* out);

}  // namespace qv::cpu
