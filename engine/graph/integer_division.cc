// TruncateIntegerDivisions: MXNet divides integer tensors as integers (C++'s a / b, truncated towards
// zero), Quiver holds them as whole numbers in float32, where a division leaves the fraction. Integer
// tensors are found by MXNet's dtype rules: data inputs of an integer type, Cast to int32/int64,
// shape_array and topk's indices with an integer dtype start them; operators whose output type is their
// inputs' type carry them on. Each broadcast_div or elemwise_div of two integer tensors gets a trunc
// after it, which gives the integer quotient exactly while both operands stay below 2^24 (the range
// float32 holds whole numbers in).
// A scalar operator on an integer tensor computes in integers too: its scalar is truncated first
// (MXNet 1.9.1: int64 [7, -7] / 2.5 gives [3, -3], * 2.5 gives [14, -14]), and _div_scalar and
// _rdiv_scalar get a trunc as well.
#include <cmath>
#include <set>
#include <string>

#include "graph/bound_graph.h"
#include "graph/graph_check.h"
#include "ops/cast.h"

namespace qv {
namespace {

// Operators whose outputs have their (data) inputs' dtype in MXNet 1.9.1.
const std::set<std::string>& TypePreserving() {
  static const std::set<std::string> ops = {
      "Reshape", "reshape_like", "expand_dims", "squeeze", "Flatten", "transpose", "SwapAxis", "slice",
      "slice_axis", "slice_like", "tile", "repeat", "SliceChannel", "Concat", "stack", "broadcast_to",
      "broadcast_like", "broadcast_axis", "zeros_like", "ones_like", "elemwise_add", "elemwise_sub",
      "elemwise_mul", "broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_mod", "_mod",
      "broadcast_maximum", "broadcast_minimum", "_maximum", "_minimum", "abs", "negative"};
  return ops;
}

// Scalar operators whose result MXNet computes in the integer tensor's type (the power operators left out:
// a negative exponent would need its own rounding).
const std::set<std::string>& IntegerScalarOps() {
  static const std::set<std::string> ops = {"_plus_scalar", "_minus_scalar", "_rminus_scalar", "_mul_scalar",
                                            "_div_scalar", "_rdiv_scalar", "_mod_scalar", "_rmod_scalar",
                                            "_maximum_scalar", "_minimum_scalar"};
  return ops;
}

bool IsIntegerDType(const std::string& dtype) {
  return dtype == "int8" || dtype == "uint8" || dtype == "int32" || dtype == "int64";
}

// A variable's "__dtype__" (MXNet's type codes, common/dtype.h): uint8, int32, int8 or int64.
bool IsIntegerDTypeCode(const std::string& code) { return code == "3" || code == "4" || code == "5" || code == "6"; }

}  // namespace

void TruncateIntegerDivisions(BoundGraph& g) {
  Graph& graph = g.graph;
  std::set<NodeEntry> integer;
  std::map<NodeEntry, NodeEntry> truncated;  // a division's output -> its trunc node's
  for (int id : TopologicalOrder(graph)) {
    const Node& node = graph.nodes[id];
    auto all_integer = [&](size_t count) {
      for (size_t i = 0; i < count && i < node.inputs.size(); ++i)
        if (!integer.count(node.inputs[i])) return false;
      return !node.inputs.empty();
    };
    if (node.is_variable()) {
      if (IsIntegerDTypeCode(AttrsOf(node).GetString("__dtype__", ""))) integer.insert({id, 0});
    } else if (node.op == "Cast") {
      if (CastTruncates(AttrsOf(node))) integer.insert({id, 0});
    } else if (node.op == "shape_array") {
      integer.insert({id, 0});
    } else if (node.op == "topk") {
      const std::string ret = AttrsOf(node).GetString("ret_typ", "indices");
      if (IsIntegerDType(AttrsOf(node).GetString("dtype", "float32")) && (ret == "indices" || ret == "both"))
        integer.insert({id, ret == "both" ? 1 : 0});
    } else if (node.op == "gather_nd") {
      if (all_integer(1)) integer.insert({id, 0});
    } else if (IntegerScalarOps().count(node.op)) {
      if (all_integer(1)) {
        const double scalar = std::trunc(AttrsOf(node).GetFloat("scalar", 0));
        if (std::fabs(scalar) < 1e15) graph.nodes[id].attrs["scalar"] = std::to_string(static_cast<int64_t>(scalar));
        integer.insert({id, 0});
        if (node.op == "_div_scalar" || node.op == "_rdiv_scalar") truncated[{id, 0}] = {};
      }
    } else if (node.op == "broadcast_div" || node.op == "elemwise_div") {
      if (all_integer(2)) {
        integer.insert({id, 0});
        truncated[{id, 0}] = {};
      }
    } else if (TypePreserving().count(node.op)) {
      if (all_integer(node.inputs.size())) {
        const int outputs = node.op == "SliceChannel" ? static_cast<int>(AttrsOf(node).RequireInt("num_outputs")) : 1;
        for (int o = 0; o < outputs; ++o) integer.insert({id, o});
      }
    }
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
