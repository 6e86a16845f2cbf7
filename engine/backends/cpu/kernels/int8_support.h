// What the CPU's int8 kernels (convolution, inner product) share: where their data's scale comes
// from, and weights quantized once per cached op.
#pragma once

#include "backends/cpu/runtime/constant_cache.h"
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

// `weight` (float32, its output channels on axis 0) as int8 in `packed` (a primitive's weights
// descriptor; `plain` is the same tensor row-major in int8), with the scales that undo the
// quantization: per output channel or one for the tensor. `scales` points into the same cached buffer.
//
// With int8 dot products (HasInt8DotProducts) max |w| is `model_levels` steps, as MXNet quantizes. Without
// them oneDNN multiplies u8 data (s8 data shifted by +128 into u8) by s8 weights with vpmaddubsw, which
// adds each two neighbouring products into 16 bits with saturation: 255 x 127 x 2 = 64770 does not fit
// in 32767. oneDNN leaves avoiding that to the caller (its guide, "Nuances of int8 computations"),
// except where its weights reorder halves them and the kernel multiplies the result back (scale_adjust
// 0.5: its convolutions on s8 data). So there the weights get 7 bits, 63 levels (255 x 63 x 2 = 32130
// fits): the integers as they are, or doubled (even, at most 126, halved exactly) where the reorder
// into the primitive's layout halves weights, which one probe reorder tells. The products are then
// exact again, at half the weights' resolution.
//
// Where the model gives its weights one scale (MXNet's inner products, and convolutions calibrated
// with calib_mode='none'), Int8ChannelwiseWeights gives them one per output channel without int8 dot
// products, which takes back part of the 7 bits' loss (each channel's grid spans its own range).
struct Int8Weights {
  std::shared_ptr<void> data;
  std::shared_ptr<void> scales;
  int64_t scale_count;
};
Int8Weights QuantizeWeights(ConstantCache& cache, const ConstantPtr& weight, const Desc& plain, const Desc& packed,
                            bool channelwise, float model_levels);

// Whether an int8 kernel's weights get one scale per output channel: where the model says so, and
// always on a CPU without int8 dot products (above).
bool Int8ChannelwiseWeights(const Int8Hints& hints);

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
