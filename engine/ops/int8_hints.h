// What an int8 model says about one of its quantized convolutions or inner products: how its input and
// output tensors are quantized and how its weights are. MXNet's quantized models carry this in their
// operators (ExpandMxnetSubgraphs, graph/mxnet_subgraphs.h, turns it into these node attributes);
// kernels read it when the op runs at precision int8 and ignore it otherwise.
//
// A quantized tensor stands for the float values integer x (range / levels): `range` is the largest
// |value| it holds, `levels` how many steps cover it (MXNet uses 127.5 for int8 and 255.5 for uint8
// where it quantizes data and weights, 127 and 255 where it requantizes).
#pragma once

#include <optional>
#include <string>

#include "common/dtype.h"
#include "ops/attrs.h"

namespace qv {

struct Int8Hints {
  bool present = false;              // the node computes in int8 at precision int8
  DType in_type = DType::kInt8;      // kUInt8 or kInt8: how its data input is quantized
  std::optional<float> in_range;     // fixed by calibration, else each run measures it
  float in_levels = 127.5f;
  DType out_type = DType::kFloat32;  // kUInt8, kInt8 (quantized with out_range) or kFloat32
  float out_range = 0;
  float weight_levels = 127.5f;
  bool channelwise = false;          // one weight scale per output channel, else one for the tensor
  int fused_ops = 0;                 // operators MXNet fused after it, which graph passes must fuse too

  static Int8Hints Parse(const Attrs& attrs);
  // The levels MXNet's kernels quantize a calibrated tensor of this type with (127.5 or 255.5).
  static float DataLevels(DType type) { return type == DType::kUInt8 ? 255.5f : 127.5f; }
  // The value of one step: range / levels, except that MXNet quantizes a range of 0 with 2^31 - 1 steps
  // per unit (everything becomes 0, or saturates, and reads back as about 0).
  static float Step(float range, float levels) { return range > 0 ? range / levels : 1.f / 2147483647.f; }
};

// The attribute keys (double underscores: MXNet's convention for attributes that are not parameters).
namespace int8_attr {
inline const std::string kInType = "__int8_in_type__";
inline const std::string kInRange = "__int8_in_range__";
inline const std::string kInLevels = "__int8_in_levels__";
inline const std::string kOutType = "__int8_out_type__";
inline const std::string kOutRange = "__int8_out_range__";
inline const std::string kWeightLevels = "__int8_weight_levels__";
inline const std::string kChannelwise = "__int8_channelwise__";
inline const std::string kFusedOps = "__int8_fused_ops__";
// On an int8 weight variable: the parameters holding its range (graph/mxnet_subgraphs.h).
inline const std::string kWeightMin = "__int8_min__";
inline const std::string kWeightMax = "__int8_max__";
}  // namespace int8_attr

}  // namespace qv
