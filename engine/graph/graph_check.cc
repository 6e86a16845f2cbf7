#include "graph/graph_check.h"

#include "common/error.h"
#include "ops/op.h"

namespace qv {

int NumOutputs(const Node& node) {
  if (node.is_variable()) return 1;
  const OpDef* def = FindOp(node.op);
  return def ? def->NumOutputs(AttrsOf(node)) : 1;
}

void AddImplicitAuxiliaryStates(Graph& graph) {
  const size_t original = graph.nodes.size();
  for (size_t id = 0; id < original; ++id) {
    if (graph.nodes[id].op != "BatchNorm" || graph.nodes[id].inputs.size() != 3) continue;
    for (const char* aux : {"moving_mean", "moving_var"}) {
      Node var;
      var.op = "null";
      var.name = graph.nodes[id].name + "_" + aux;
      graph.nodes.push_back(var);
      graph.nodes[id].inputs.push_back({static_cast<int>(graph.nodes.size()) - 1, 0});
    }
  }
}

void CheckGraphOperators(const Graph& graph) {
  for (const Node& node : graph.nodes) {
    if (node.is_variable()) continue;
    const OpDef* def = FindOp(node.op);
    Check(def != nullptr, Status::kUnsupported,
          "node '" + node.name + "': operator '" + node.op + "' is not supported by Quiver");
    const Attrs attrs = AttrsOf(node);
    const size_t expected = def->InputNames(attrs).size();
    Check(node.inputs.size() == expected, Status::kParse,
          attrs.Where() + "has " + std::to_string(node.inputs.size()) + " inputs, expected " + std::to_string(expected));
    for (const NodeEntry& in : node.inputs) {
      const Node& producer = graph.nodes[in.node];
      Check(in.index < NumOutputs(producer), Status::kParse,
            attrs.Where() + "reads output " + std::to_string(in.index) + " of node '" + producer.name + "', which has " +
                std::to_string(NumOutputs(producer)));
    }
  }
  for (const NodeEntry& out : graph.outputs)
    Check(out.index < NumOutputs(graph.nodes[out.node]), Status::kParse,
          "graph output refers to output " + std::to_string(out.index) + " of node '" + graph.nodes[out.node].name + "'");
}

std::vector<int> TopologicalOrder(const Graph& graph) {
  std::vector<int> order;
  std::vector<char> state(graph.nodes.size(), 0);  // 0 unseen, 1 on stack, 2 done
  std::vector<std::pair<int, size_t>> stack;
  for (const NodeEntry& out : graph.outputs) {
    if (state[out.node]) continue;
    stack.push_back({out.node, 0});
    state[out.node] = 1;
    while (!stack.empty()) {
      auto& [id, next] = stack.back();
      const Node& node = graph.nodes[id];
      if (next < node.inputs.size()) {
        const int child = node.inputs[next++].node;
        Check(state[child] != 1, Status::kParse, "graph has a cycle through node '" + graph.nodes[child].name + "'");
        if (state[child] == 0) {
          state[child] = 1;
          stack.push_back({child, 0});
        }
      } else {
        state[id] = 2;
        order.push_back(id);
        stack.pop_back();
      }
    }
  }
  return order;
}

std::vector<int> ListVariables(const Graph& graph) {
  std::vector<int> vars;
  for (int id : TopologicalOrder(graph))
    if (graph.nodes[id].is_variable()) vars.push_back(id);
  return vars;
}

std::vector<std::string> ListOutputNames(const Graph& graph) {
  std::vector<std::string> names;
  for (const NodeEntry& out : graph.outputs) {
    const Node& node = graph.nodes[out.node];
    if (node.is_variable()) names.push_back(node.name);
    else if (NumOutputs(node) == 1) names.push_back(node.name + "_output");
    else names.push_back(node.name + "_output" + std::to_string(out.index));
  }
  return names;
}

}  // namespace qv
