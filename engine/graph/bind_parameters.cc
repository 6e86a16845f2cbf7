#include <algorithm>
#include <set>

#include "common/error.h"
#include "graph/bound_graph.h"
#include "graph/graph_check.h"
#include "ops/op.h"

namespace qv {
namespace {

// The op's own host copy, from whichever device the caller's array is on.
NDArrayPtr CopyOf(const NDArray& a) {
  NDArrayPtr copy = NDArray::Create(a.shape(), a.dtype());
  a.CopyToHost(copy->data(), a.nbytes());
  return copy;
}

// Removes the inputs an operator never reads at inference (SoftmaxOutput's label).
void DropUnusedInputs(Graph& graph) {
  for (Node& node : graph.nodes) {
    if (node.is_variable()) continue;
    const auto unused = FindOp(node.op)->UnusedInputs(AttrsOf(node));
    for (auto it = unused.rbegin(); it != unused.rend(); ++it)
      if (*it < static_cast<int>(node.inputs.size())) node.inputs.erase(node.inputs.begin() + *it);
  }
}

// A parameter read through MXNet's AMP casts (amp_cast(weight), or an output of amp_multicast) is
// still a parameter: FoldCasts rounds it at creation.
NodeEntry ThroughCasts(const Graph& graph, NodeEntry e) {
  for (;;) {
    const Node& src = graph.nodes[e.node];
    if (src.op == "amp_cast" && !src.inputs.empty()) e = src.inputs[0];
    else if (src.op == "amp_multicast" && e.index < static_cast<int>(src.inputs.size())) e = src.inputs[e.index];
    else return e;
  }
}

}  // namespace

std::string ParamName(const std::string& key) {
  if (key.rfind("arg:", 0) == 0 || key.rfind("aux:", 0) == 0) return key.substr(4);
  return key;
}

BoundGraph BindParameters(const Graph& graph, const std::map<std::string, NDArrayPtr>& params) {
  BoundGraph g;
  g.graph = graph;
  DropUnusedInputs(g.graph);
  g.output_names = ListOutputNames(graph);

  std::map<std::string, NDArrayPtr> by_name;
  for (const auto& [name, array] : params) by_name[ParamName(name)] = array;

  for (int id : ListVariables(g.graph)) {
    const Node& var = g.graph.nodes[id];
    auto it = by_name.find(var.name);
    if (it == by_name.end()) {
      g.data_inputs.push_back(id);
      g.input_names.push_back(var.name);
    } else {
      Check(it->second->dtype() == DType::kFloat32, Status::kUnsupported,
            "parameter '" + var.name + "' is " + DTypeName(it->second->dtype()) + ", only float32 is supported");
      g.constants[id] = CopyOf(*it->second);
    }
  }

  // Weight-like inputs must be parameters; check their shapes against the attributes. Only nodes the
  // outputs reach: a symbol whose heads are internal nodes leaves the rest (and their weights) unused.
  for (int id : TopologicalOrder(g.graph)) {
    const Node& node = g.graph.nodes[id];
    if (node.is_variable()) continue;
    const OpDef* def = FindOp(node.op);
    const Attrs attrs = AttrsOf(node);
    const auto names = def->InputNames(attrs);
    std::vector<const Shape*> shapes(node.inputs.size(), nullptr);
    std::string bound_names;
    for (int slot : def->ParamInputs(attrs)) {
      const NodeEntry param = ThroughCasts(g.graph, node.inputs[slot]);
      const Node& src = g.graph.nodes[param.node];
      if (!src.is_variable()) continue;
      auto c = g.constants.find(param.node);
      Check(c != g.constants.end(), Status::kNotFound,
            "missing parameter '" + src.name + "' (" + names[slot] + " of node '" + node.name + "')");
      shapes[slot] = &c->second->shape();
      bound_names += (bound_names.empty() ? "" : ", ") + names[slot] + " = '" + src.name + "'";
    }
    try {
      def->CheckParams(attrs, shapes);
    } catch (const Error& e) {
      throw Error(e.status(), std::string(e.what()) + " (parameters: " + bound_names + ")");
    }
  }
  return g;
}

}  // namespace qv
