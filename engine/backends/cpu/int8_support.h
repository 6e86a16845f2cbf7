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

// `weight` (float32, its output channels on axis 0) as int8 in `packed` (a primitive's weights
// descriptor; `plain` is the same tensor row-major in int8), with the scales that undo the
// quantization: per output channel or one for the tensor, each max |w| / levels. `scales` points into
// the same cached buffer.
struct Int8Weights {
  std::shared_ptr<void> data;
  std::shared_ptr<void> scales;
  int64_t scale_count;
};
Int8Weights QuantizeWeights(ConstantCache& cache, const ConstantPtr& weight, const Desc& plain, const Desc& packed,
                            bool channelwise, float levels);

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
