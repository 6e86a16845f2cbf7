// TruncateIntegerDivisions: MXNet divides integer tensors as integers (C++'s a / b, truncated towards
// zero), Quiver holds them as whole numbers in float32, where a division leaves the fraction. Integer
// tensors are found by MXNet's dtype rules, which each operator declares (OpTraits::output_dtypes):
// data inputs of an integer type start them, and so do the outputs an operator gives an integer type
// (Cast to int32, shape_array, topk's indices); operators whose output has their inputs' type carry
// them on. Each division of integer tensors (OpTraits::integer_quotient) gets a trunc after it, which
// gives the integer quotient exactly while both operands stay below 2^24 (the range float32 holds whole
// numbers in). An operator on an integer tensor computes in its type: its integer_attrs (a scalar,
// clip's bounds) are truncated first (MXNet 1.9.1: int64 [7, -7] / 2.5 gives [3, -3], * 2.5 gives
// [14, -14]).
#include <cmath>
#include <set>
#include <string>

#include "graph/bound_graph.h"
#include "graph/graph_check.h"
#include "ops/op.h"

namespace qv {
namespace {

// A variable's "__dtype__" (MXNet's type codes, common/dtype.h): uint8, int32, int8 or int64.
bool IsIntegerDTypeCode(const std::string& code) { return code == "3" || code == "4" || code == "5" || code == "6"; }

}  // namespace

void TruncateIntegerDivisions(BoundGraph& g) {
  Graph& graph = g.graph;
  std::set<NodeEntry> integer;
  std::map<NodeEntry, NodeEntry> truncated;  // a division's output -> its trunc node's
  for (int id : TopologicalOrder(graph)) {
    const Node& node = graph.nodes[id];
    if (node.is_variable()) {
      if (IsIntegerDTypeCode(AttrsOf(node).GetString("__dtype__", ""))) integer.insert({id, 0});
      continue;
    }
    const OpDef* def = FindOp(node.op);
    if (def == nullptr) continue;
    const Attrs attrs = AttrsOf(node);
    const OpTraits traits = def->Traits(attrs);
    auto all_integer = [&](size_t count) {
      if (node.inputs.size() < count || count == 0) return false;
      for (size_t i = 0; i < count; ++i)
        if (!integer.count(node.inputs[i])) return false;
      return true;
    };
    const bool inputs_integer = all_integer(node.inputs.size());
    const int outputs = def->NumOutputs(attrs);
    bool computes_in_integers = false;
    for (int o = 0; o < outputs; ++o) {
      const OutputDType rule = traits.OutputDTypeOf(static_cast<size_t>(o));
      const bool is_integer = rule == OutputDType::kInteger || (rule == OutputDType::kOfInputs && inputs_integer) ||
                              (rule == OutputDType::kOfFirstInput && all_integer(1));
      if (is_integer) integer.insert({id, o});
      computes_in_integers = computes_in_integers || (is_integer && rule != OutputDType::kInteger);
    }
    if (!computes_in_integers) continue;
    for (const std::string& key : traits.integer_attrs) {
      if (!attrs.Has(key)) continue;
      const double value = std::trunc(attrs.GetFloat(key, 0));
      if (std::fabs(value) < 1e15) graph.nodes[id].attrs[key] = std::to_string(static_cast<int64_t>(value));
    }
    if (traits.integer_quotient) truncated[{id, 0}] = {};
  }
  if (truncated.empty()) return;
  for (auto& [division, trunc] : truncated) {
    Node t;
    t.op = "trunc";
    t.name = graph.nodes[division.node].name + "_integer_quotient";
    t.inputs = {division};
    graph.nodes.push_back(t);
    trunc = {static_cast<int>(graph.nodes.size()) - 1, 0};
  }
  const int added_from = static_cast<int>(graph.nodes.size() - truncated.size());
  for (int id = 0; id < added_from; ++id)
    for (NodeEntry& in : graph.nodes[id].inputs) {
      auto it = truncated.find(in);
      if (it != truncated.end()) in = it->second;
    }
  for (NodeEntry& out : graph.outputs) {
    auto it = truncated.find(out);
    if (it != truncated.end()) out = it->second;
  }
}

}  // namespace qv
