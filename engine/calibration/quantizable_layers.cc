#include "calibration/quantizable_layers.h"

#include <algorithm>

#include "ops/attrs.h"
#include "ops/op.h"

namespace qv {
namespace {

class Readers {
 public:
  explicit Readers(const Graph& graph) {
    for (size_t id = 0; id < graph.nodes.size(); ++id)
      for (const NodeEntry& in : graph.nodes[id].inputs) readers_[in].push_back(static_cast<int>(id));
    for (const NodeEntry& out : graph.outputs) outputs_.insert(out);
  }
  const std::vector<int>& Of(const NodeEntry& e) const {
    static const std::vector<int> none;
    auto it = readers_.find(e);
    return it == readers_.end() ? none : it->second;
  }
  // The node that alone reads `e`, once; -1 when e is a graph output, unread or read more than once.
  int Sole(const NodeEntry& e) const {
    const std::vector<int>& r = Of(e);
    return outputs_.count(e) == 0 && r.size() == 1 ? r[0] : -1;
  }

 private:
  std::map<NodeEntry, std::vector<int>> readers_;
  std::set<NodeEntry> outputs_;
};

ActivationKind ActivationOf(const Node& n) {
  const OpDef* def = n.is_variable() ? nullptr : FindOp(n.op);
  return def == nullptr ? ActivationKind::kNone : def->Traits(AttrsOf(n)).activation;
}

bool IsRelu(const Node& n) { return ActivationOf(n) == ActivationKind::kRelu; }

bool AreParams(const Node& n, size_t first, const std::set<int>& params) {
  for (size_t i = first; i < n.inputs.size(); ++i)
    if (params.count(n.inputs[i].node) == 0) return false;
  return true;
}

bool IsQuantizableConvolution(const Node& n, const std::set<int>& params) {
  // 2-D and 3-D alike: the operator accepts only channels-first layouts.
  return n.op == "Convolution" && n.inputs.size() >= 2 && params.count(n.inputs[0].node) == 0 &&
         AreParams(n, 1, params);
}

bool IsQuantizableInnerProduct(const Node& n, const std::set<int>& params) {
  return n.op == "FullyConnected" && n.inputs.size() >= 2 && params.count(n.inputs[0].node) == 0 &&
         AreParams(n, 1, params);
}

// Pooling and Flatten pass int8 data through unchanged in range (MXNet's quantized_pooling/_flatten).
bool PassesInt8(const Node& n) {
  if (n.op == "Flatten") return true;
  if (n.op != "Pooling") return false;
  const std::string type = AttrsOf(n).GetString("pool_type", "max");
  return type == "max" || type == "avg";
}

// The convolution at `id` and what MXNet fuses after it: [BatchNorm] [relu or clip | elemwise_add [relu]].
QuantizedLayer GrowConvolution(const Graph& g, int id, const Readers& readers, const std::set<int>& params,
                               const std::map<int, int>& claimed) {
  QuantizedLayer layer;
  layer.nodes = {id};
  layer.data = g.nodes[id].inputs[0];
  auto next = [&](int tail) { return readers.Sole({tail, 0}); };
  int r = next(id);
  if (r >= 0 && g.nodes[r].op == "BatchNorm" && g.nodes[r].inputs[0] == NodeEntry{id, 0} &&
      AreParams(g.nodes[r], 1, params)) {
    layer.batch_norm = r;
    layer.nodes.push_back(r);
    r = next(r);
  }
  if (r >= 0 && ActivationOf(g.nodes[r]) != ActivationKind::kNone) {
    layer.act = r;
    layer.nodes.push_back(r);
  } else if (r >= 0 && g.nodes[r].op == "elemwise_add" && g.nodes[r].inputs.size() == 2 &&
             !(g.nodes[r].inputs[0] == g.nodes[r].inputs[1])) {
    const NodeEntry tail{layer.nodes.back(), 0};
    // Where two convolution chains meet at an addition (ResNet's downsampling blocks), the first in
    // node order takes it, as MXNet's partitioner does; the other chain's output is the residual.
    if (claimed.count(r) == 0) {
      layer.sum = r;
      layer.residual = g.nodes[r].inputs[0] == tail ? g.nodes[r].inputs[1] : g.nodes[r].inputs[0];
      layer.nodes.push_back(r);
      const int after = next(r);
      if (after >= 0 && IsRelu(g.nodes[after])) {
        layer.postsum_act = after;
        layer.nodes.push_back(after);
      }
    }
  }
  layer.output = {layer.nodes.back(), 0};
  return layer;
}

}  // namespace

bool QuantizationScheme::IsInt8(const NodeEntry& e) const {
  if (e.index != 0) return false;
  if (int8_passthrough.count(e.node) != 0) return true;
  auto it = layer_of.find(e.node);
  if (it == layer_of.end()) return false;
  const QuantizedLayer& layer = layers[it->second];
  return layer.output == e && !layer.float_output;
}

QuantizationScheme PlanQuantization(const Graph& graph, const std::set<int>& params) {
  const Readers readers(graph);
  QuantizationScheme s;
  auto add_layer = [&](QuantizedLayer layer) {
    for (int id : layer.nodes) s.layer_of[id] = static_cast<int>(s.layers.size());
    s.layers.push_back(std::move(layer));
  };
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const int id = static_cast<int>(i);
    const Node& n = graph.nodes[i];
    if (s.layer_of.count(id) != 0) continue;
    if (IsQuantizableConvolution(n, params)) {
      add_layer(GrowConvolution(graph, id, readers, params, s.layer_of));
    } else if (IsQuantizableInnerProduct(n, params)) {
      QuantizedLayer fc;
      fc.convolution = false;
      fc.nodes = {id};
      fc.data = n.inputs[0];
      fc.output = {id, 0};
      add_layer(fc);
    } else if (PassesInt8(n) && !n.inputs.empty() && s.IsInt8(n.inputs[0])) {
      s.int8_passthrough.insert(id);
    }
  }
  // An inner product whose output no int8 node reads keeps it in float32 (MXNet's enable_float_output).
  for (QuantizedLayer& layer : s.layers) {
    if (layer.convolution) continue;
    const std::vector<int>& r = readers.Of(layer.output);
    layer.float_output = std::none_of(r.begin(), r.end(), [&](int reader) {
      auto it = s.layer_of.find(reader);
      const bool layer_input = it != s.layer_of.end() && (s.layers[it->second].data == layer.output ||
                                                          s.layers[it->second].residual == layer.output);
      return layer_input || s.int8_passthrough.count(reader) != 0;
    });
  }
  std::set<NodeEntry> seen;
  auto calibrate = [&](const NodeEntry& e) {
    if (seen.insert(e).second) s.calibrated.push_back(e);
  };
  for (const QuantizedLayer& layer : s.layers) {
    if (!s.IsInt8(layer.data)) calibrate(layer.data);
    if (layer.sum >= 0 && !s.IsInt8(layer.residual)) calibrate(layer.residual);
    if (!layer.float_output) calibrate(layer.output);
  }
  return s;
}

}  // namespace qv
