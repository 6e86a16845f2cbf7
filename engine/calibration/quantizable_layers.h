// Which parts of a float32 MXNet graph an int8 model runs quantized, grouped the way MXNet 1.9's
// oneDNN backend fuses them (`_sg_mkldnn_conv`, `_sg_mkldnn_fully_connected`), so that a calibrated
// model can be written in MXNet's quantized format (calibration/mxnet_quantized_writer.h).
#pragma once

#include <map>
#include <set>
#include <vector>

#include "graph/graph.h"

namespace qv {

// One fused, quantized layer: a 2-D or 3-D convolution with what follows it (BatchNorm, then relu or clip,
// or a residual elemwise_add and a relu after it), or an inner product.
struct QuantizedLayer {
  bool convolution = true;  // else FullyConnected
  std::vector<int> nodes;   // the layer's own node first, then those fused after it, in order
  int batch_norm = -1;      // node ids, or -1
  int act = -1;
  int sum = -1;
  int postsum_act = -1;
  NodeEntry data;           // the layer's data input
  NodeEntry residual;       // the other operand of `sum`
  NodeEntry output;         // output 0 of the last node
  bool float_output = false;  // an inner product whose every reader runs in float32
};

struct QuantizationScheme {
  std::vector<QuantizedLayer> layers;
  std::map<int, int> layer_of;     // node id -> index into layers, for every node of every layer
  std::set<int> int8_passthrough;  // Pooling (max, avg) and Flatten nodes that read and write int8
  // The float32 tensors calibration measures: each layer's int8 output, and every float tensor an
  // int8 node reads (quantized on the way in), in node order.
  std::vector<NodeEntry> calibrated;

  // True when `entry` holds int8 data in the quantized model.
  bool IsInt8(const NodeEntry& entry) const;
};

// Finds the layers in `graph` (a float32 model as read from its symbol JSON) and the int8 data flow
// between them. `params` holds the variable ids bound to parameters: weights must be parameters.
QuantizationScheme PlanQuantization(const Graph& graph, const std::set<int>& params);

}  // namespace qv
