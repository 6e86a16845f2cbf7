// Writes a calibrated model in MXNet 1.9's quantized format, the one `quantize_net` exports with its
// oneDNN backend: `_contrib_quantize_v2` where float32 data enters int8, `_sg_mkldnn_conv` and
// `_sg_mkldnn_fully_connected` nodes with `quantized` set, carrying the nodes they fuse as a subgraph
// and their calibrated output range (`min_calib_range` / `max_calib_range`), inner products' int8
// weights and biases stored beside their ranges, `_contrib_quantized_pooling` / `_flatten` between
// them, and `_contrib_dequantize` where float32 readers follow. MXNet 1.9 loads the result, and so does
// Quiver (graph/mxnet_subgraphs.h).
#pragma once

#include <map>
#include <string>
#include <utility>

#include "calibration/quantizable_layers.h"
#include "graph/params_io.h"

namespace qv {

struct Range {
  float min = 0;
  float max = 0;
};

struct QuantizedModel {
  std::string symbol_json;
  NamedArrays params;  // names with MXNet's "arg:"/"aux:" prefixes, ready for SaveParams
};

// `constants`: each parameter variable's value; `keys`: its name in the model's params file (with
// the prefix it had there); `ranges`: every tensor in scheme.calibrated.
QuantizedModel WriteMxnetQuantized(const Graph& graph, const std::map<int, NDArrayPtr>& constants,
                                   const std::map<int, std::string>& keys, const QuantizationScheme& scheme,
                                   const std::map<NodeEntry, Range>& ranges);

}  // namespace qv
