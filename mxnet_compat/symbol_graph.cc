// Reads the graph structure of MXNet symbol JSON for the name lists and rewrites of the symbol API.
// Quiver's loader validates and runs the graph; this only mirrors how MXNet names and orders things.
#include "symbol_graph.h"

#include <algorithm>
#include <set>
#include <utility>

#include "errors.h"

namespace mxc {
namespace {

using nlohmann::json;

// Operators whose inputs 3 and 4 are moving statistics that MXNet lists as auxiliary states.
bool HasMovingStats(const std::string& op) {
  static const std::set<std::string> kOps = {"BatchNorm", "BatchNorm_v1", "SyncBatchNorm", "_contrib_SyncBatchNorm",
                                             "CuDNNBatchNorm", "_contrib_BatchNormWithReLU"};
  return kOps.count(op) != 0;
}

std::string StringField(const json& node, const char* key) {
  auto it = node.find(key);
  if (it == node.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

// An attribute from whichever of MXNet's three spellings ("attrs", "attr", "param") holds it.
std::string Attr(const json& node, const char* key) {
  for (const char* field : {"attrs", "attr", "param"}) {
    auto it = node.find(field);
    if (it != node.end() && it->is_object()) {
      auto v = it->find(key);
      if (v != it->end() && v->is_string()) return v->get<std::string>();
    }
  }
  return "";
}

bool IsVariable(const json& node) { return StringField(node, "op") == "null"; }

// The suffixes MXNet appends to an operator node's name to name its outputs.
std::vector<std::string> OutputSuffixes(const json& node) {
  const std::string op = StringField(node, "op");
  // BatchNorm's mean and variance outputs are hidden (MXNet's num_visible_outputs is 1), and the
  // internals list only visible outputs.
  if (HasMovingStats(op)) return {"_output"};
  const std::string n = Attr(node, "num_outputs");
  int count = 1;
  if ((op == "SliceChannel" || op == "split" || op == "_split_v2") && !n.empty()) count = std::max(1, std::stoi(n));
  if (count == 1) return {"_output"};
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) out.push_back("_output" + std::to_string(i));
  return out;
}

}  // namespace

SymbolGraph::SymbolGraph(const std::string& text) {
  try {
    graph_ = json::parse(text);
  } catch (const json::exception& e) {
    throw Error(std::string("malformed symbol JSON: ") + e.what());
  }
  Require(graph_.is_object() && graph_.contains("nodes") && graph_["nodes"].is_array(),
          "malformed symbol JSON: no \"nodes\" array");
  Require(graph_.contains("heads") && graph_["heads"].is_array(), "malformed symbol JSON: no \"heads\" array");
  const json& nodes = graph_["nodes"];
  auto check_entry = [&](const json& e, const std::string& where) {
    Require(e.is_array() && !e.empty() && e[0].is_number_unsigned() && e[0].get<size_t>() < nodes.size(),
            "malformed symbol JSON: " + where + " refers to no node");
  };
  for (size_t i = 0; i < nodes.size(); ++i) {
    Require(nodes[i].is_object() && nodes[i].contains("op"), "malformed symbol JSON: node " + std::to_string(i));
    auto in = nodes[i].find("inputs");
    if (in == nodes[i].end()) continue;
    Require(in->is_array(), "malformed symbol JSON: inputs of node " + std::to_string(i));
    for (const json& e : *in) check_entry(e, "an input of node " + std::to_string(i));
  }
  for (const json& h : graph_["heads"]) check_entry(h, "a head");

  std::set<size_t> aux_nodes;
  for (const json& node : nodes) {
    if (!HasMovingStats(StringField(node, "op")) || !node.contains("inputs")) continue;
    const json& in = node["inputs"];
    for (size_t k = 3; k < 5 && k < in.size(); ++k) aux_nodes.insert(in[k][0].get<size_t>());
  }
  for (size_t id : DepthFirstOrder()) {
    if (!IsVariable(nodes[id])) continue;
    const std::string name = StringField(nodes[id], "name");
    inputs_.push_back(name);
    (aux_nodes.count(id) ? aux_states_ : arguments_).push_back(name);
  }
}

bool SymbolGraph::IsAux(const std::string& name) const {
  return std::find(aux_states_.begin(), aux_states_.end(), name) != aux_states_.end();
}

// nnvm's DFSVisit: post-order from the heads, inputs in order, each node once.
std::vector<size_t> SymbolGraph::DepthFirstOrder() const {
  const json& nodes = graph_["nodes"];
  std::vector<char> seen(nodes.size(), 0);
  std::vector<size_t> order;
  std::vector<std::pair<size_t, size_t>> stack;  // (node, next input to visit)
  for (const json& h : graph_["heads"]) {
    const size_t head = h[0].get<size_t>();
    if (seen[head]) continue;
    seen[head] = 1;
    stack.emplace_back(head, 0);
    while (!stack.empty()) {
      auto& [id, next] = stack.back();
      const json* in = nodes[id].contains("inputs") ? &nodes[id]["inputs"] : nullptr;
      if (in && next < in->size()) {
        const size_t child = (*in)[next++][0].get<size_t>();
        if (!seen[child]) {
          seen[child] = 1;
          stack.emplace_back(child, 0);
        }
      } else {
        order.push_back(id);
        stack.pop_back();
      }
    }
  }
  return order;
}

std::string SymbolGraph::WithHeads(const std::vector<Entry>& heads) const {
  json copy = graph_;
  json h = json::array();
  for (const Entry& e : heads) h.push_back(json::array({e.node, e.index, 0}));
  copy["heads"] = h;
  return copy.dump();
}

std::string SymbolGraph::InternalsJSON(std::vector<std::string>* output_names) const {
  const json& nodes = graph_["nodes"];
  std::vector<Entry> heads;
  output_names->clear();
  for (size_t id : DepthFirstOrder()) {
    const std::string name = StringField(nodes[id], "name");
    if (IsVariable(nodes[id])) {
      heads.push_back({id, 0});
      output_names->push_back(name);
      continue;
    }
    const auto suffixes = OutputSuffixes(nodes[id]);
    for (size_t i = 0; i < suffixes.size(); ++i) {
      heads.push_back({id, i});
      output_names->push_back(name + suffixes[i]);
    }
  }
  return WithHeads(heads);
}

std::string SymbolGraph::SelectOutputsJSON(const std::vector<std::string>& node_names) const {
  const json& nodes = graph_["nodes"];
  std::vector<Entry> heads;
  for (const std::string& key : node_names) {
    bool found = false;
    for (size_t id = 0; id < nodes.size() && !found; ++id) {
      if (IsVariable(nodes[id]) || StringField(nodes[id], "name") != key) continue;
      found = OutputSuffixes(nodes[id])[0] == "_output";
      if (found) heads.push_back({id, 0});
    }
    // MXNet looks the key up among the internals' output names with "_output" appended.
    Require(found, "didn't find node name: " + key + "_output");
  }
  return WithHeads(heads);
}

}  // namespace mxc
