#include "graph/output_types.h"

#include "graph/graph_check.h"
#include "ops/op.h"

namespace qv {

std::vector<TensorType> InferOutputTypes(const BoundGraph& graph, const std::map<int, TensorType>& constants,
                                         const std::vector<TensorType>& inputs) {
  std::map<int, std::vector<TensorType>> produced;  // node id -> its outputs' types
  for (size_t i = 0; i < graph.data_inputs.size(); ++i)
    produced[graph.data_inputs[i]] = {{inputs.at(i).shape, DType::kFloat32}};
  for (const auto& [id, type] : constants) produced[id] = {type};
  for (int id : TopologicalOrder(graph.graph)) {
    const Node& node = graph.graph.nodes[id];
    if (node.is_variable()) continue;
    std::vector<TensorType> in;
    for (const NodeEntry& e : node.inputs) in.push_back(produced.at(e.node).at(static_cast<size_t>(e.index)));
    const Attrs attrs = AttrsOf(node);
    produced[id] = FindOp(node.op)->InferShape(attrs, in);
  }
  std::vector<TensorType> outputs;
  for (const NodeEntry& e : graph.graph.outputs)
    outputs.push_back(produced.at(e.node).at(static_cast<size_t>(e.index)));
  return outputs;
}

}  // namespace qv
