#include "graph/symbol_json.h"

#include <climits>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/utf8.h"
#include "graph/mxnet_subgraphs.h"
#include "ops/op.h"

namespace qv {
namespace {

using nlohmann::json;

// Layouts handled (all three may appear in one file; keys are merged per node):
//  - MXNet <= 0.8: operator parameters under "param", hidden attributes under "attr", inputs and heads
//    as [node, index], "backward_source_id" per node, no "node_row_ptr", no graph "attrs".
//  - MXNet 0.9 .. 0.12 (first nnvm writers): one "attr" dict per node, [node, index, version] entries.
//  - MXNet 1.x: one "attrs" dict per node, "arg_nodes", "node_row_ptr", graph "attrs".
// Only the structure is checked here; operator names and arities are the registry's business.

[[noreturn]] void Fail(const std::string& message) { throw Error(Status::kParse, message); }

// "node 3" before the name is known, "node 3 ('conv0')" after.
std::string NodeLabel(size_t index, const std::string* name) {
  std::string label = "node " + std::to_string(index);
  if (name) label += " (" + QuoteName(*name) + ")";
  return label;
}

json ParseText(const std::string& text) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    // The parser quotes the token it stopped in, which can be as long as the file and need not be UTF-8.
    Fail("not valid JSON (parser stopped at byte " + std::to_string(e.byte) +
         "): " + ShortenUtf8(ToValidUtf8(e.what()), 300));
  } catch (const json::exception& e) {
    Fail("not valid JSON: " + ShortenUtf8(ToValidUtf8(e.what()), 300));  // e.g. a number too large for a double
  }
}

// Reads a JSON integer that must lie in [0, INT_MAX]; `what` names the field in errors.
int ReadIndex(const json& value, const std::string& what) {
  if (value.is_number_unsigned()) {
    const uint64_t v = value.get<uint64_t>();
    if (v > static_cast<uint64_t>(INT_MAX)) Fail(what + " is too large: " + std::to_string(v));
    return static_cast<int>(v);
  }
  if (value.is_number_integer()) {
    const int64_t v = value.get<int64_t>();
    if (v < 0) Fail(what + " is negative: " + std::to_string(v));
    if (v > INT_MAX) Fail(what + " is too large: " + std::to_string(v));
    return static_cast<int>(v);
  }
  Fail(what + " must be a non-negative integer, got " + std::string(value.type_name()));
}

// An entry is [node, index] (MXNet <= 0.8) or [node, index, version]; the version is ignored.
// Inputs must refer to earlier nodes (`first_invalid` is the node itself), heads to any node.
NodeEntry ParseEntry(const json& value, const std::string& what, size_t node_count, size_t first_invalid) {
  if (!value.is_array() || value.size() < 2 || value.size() > 3)
    Fail(what + " must be [node, index] or [node, index, version], got " +
         (value.is_array() ? "an array of " + std::to_string(value.size()) : std::string(value.type_name())));
  NodeEntry entry;
  entry.node = ReadIndex(value[0], what + " node index");
  entry.index = ReadIndex(value[1], what + " output index");
  if (value.size() == 3 && !value[2].is_number_integer()) Fail(what + " version must be an integer");
  const size_t target = static_cast<size_t>(entry.node);
  if (target >= node_count)
    Fail(what + " refers to node " + std::to_string(target) + ", which does not exist (the graph has " +
         std::to_string(node_count) + " nodes)");
  if (target >= first_invalid)
    Fail(what + " refers to node " + std::to_string(target) +
         ", which is not earlier than the node itself (a cycle, or nodes out of topological order)");
  return entry;
}

std::string ScalarToString(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "True" : "False";
  if (value.is_null()) return "None";
  return value.dump();  // numbers: integers as written, floats in shortest round-trip form
}

// Some non-MXNet writers store attribute values as JSON numbers, booleans, null or arrays. They are
// turned into the strings MXNet itself writes, so attribute parsing later sees one form:
// true -> "True", 64 -> "64", 0.5 -> "0.5", null -> "None", [3, 3] -> "(3, 3)", [7] -> "(7,)".
// Objects and nested arrays have no MXNet string form and are rejected.
std::string AttrValueToString(const json& value, const std::string& what) {
  if (value.is_object()) Fail(what + " must be a string, number, boolean or flat array, got an object");
  if (!value.is_array()) return ScalarToString(value);
  std::string out = "(";
  for (size_t i = 0; i < value.size(); ++i) {
    if (value[i].is_array() || value[i].is_object()) Fail(what + " is a nested array, which has no MXNet form");
    if (i) out += ", ";
    out += ScalarToString(value[i]);
  }
  if (value.size() == 1) out += ",";
  return out + ")";
}

// MXNet <= 0.8 stored training hints as plain keys ("lr_mult", or "weight_lr_mult" for an input);
// MXNet's own upgrader renames the plain ones to "__lr_mult__". We do the same, and wrap the
// per-input forms too, so that every such hint is a "__...__" key that operators ignore.
std::string HideTrainingKey(const std::string& key) {
  static const char* const kHintKeys[] = {"ctx_group", "lr_mult", "wd_mult", "force_mirroring", "mirror_stage"};
  for (const char* hint : kHintKeys) {
    const std::string h(hint);
    const bool exact = key == h;
    const bool suffixed = key.size() > h.size() + 1 && key.compare(key.size() - h.size(), h.size(), h) == 0 &&
                          key[key.size() - h.size() - 1] == '_';
    if (exact || suffixed) return "__" + key + "__";
  }
  return key;
}

// Merges node[field] (an object of attributes) into attrs; later fields overwrite earlier ones.
void MergeAttrs(const json& node, const char* field, const std::string& label, std::map<std::string, std::string>& attrs) {
  auto it = node.find(field);
  if (it == node.end() || it->is_null()) return;
  const std::string where = label + " field \"" + field + "\"";
  if (!it->is_object()) Fail(where + " must be an object, got " + std::string(it->type_name()));
  for (auto kv = it->begin(); kv != it->end(); ++kv)
    attrs[HideTrainingKey(kv.key())] = AttrValueToString(kv.value(), where + " key " + QuoteName(kv.key()));
}

std::string RequireString(const json& node, const char* field, const std::string& label) {
  auto it = node.find(field);
  if (it == node.end()) Fail(label + " has no \"" + field + "\" field");
  if (!it->is_string()) Fail(label + " field \"" + field + "\" must be a string, got " + std::string(it->type_name()));
  return it->get<std::string>();
}

void ParseInputs(const json& node, size_t index, size_t node_count, const std::string& label, Node& out) {
  auto it = node.find("inputs");
  if (it == node.end() || it->is_null()) return;
  if (!it->is_array()) Fail(label + " field \"inputs\" must be an array, got " + std::string(it->type_name()));
  for (size_t i = 0; i < it->size(); ++i) {
    const std::string what = label + " input " + std::to_string(i);
    out.inputs.push_back(ParseEntry((*it)[i], what, node_count, index));
  }
}

// How deep subgraphs may nest: MXNet's fused operators (_sg_*) hold one level, never more. The limit
// also keeps a hostile file from recursing this parser off its stack.
constexpr int kMaxSubgraphDepth = 1;

Graph ParseGraph(const json& root, int depth);

Node ParseNode(const json& value, size_t index, size_t node_count, int depth) {
  if (!value.is_object()) Fail(NodeLabel(index, nullptr) + " must be an object, got " + std::string(value.type_name()));
  Node node;
  // MXNet's other spellings of an operator become its one canonical name here, once.
  node.op = CanonicalOpName(RequireString(value, "op", NodeLabel(index, nullptr)));
  node.name = RequireString(value, "name", NodeLabel(index, nullptr));
  // The C API hands names out as C strings, which end at the first NUL.
  if (node.name.find('\0') != std::string::npos) Fail(NodeLabel(index, nullptr) + " has a name with a NUL character");
  const std::string label = NodeLabel(index, &node.name);
  // Precedence when a key repeats: "attrs" (newest layout) over "attr" over "param".
  MergeAttrs(value, "param", label, node.attrs);
  MergeAttrs(value, "attr", label, node.attrs);
  MergeAttrs(value, "attrs", label, node.attrs);
  ParseInputs(value, index, node_count, label, node);
  if (node.is_variable() && !node.inputs.empty())
    Fail(label + " is a variable (op \"null\") but has " + std::to_string(node.inputs.size()) + " input(s)");
  auto sub = value.find("subgraphs");
  if (sub != value.end() && !sub->is_null() && !(sub->is_array() && sub->empty())) {
    if (!IsMxnetFusedOp(node.op))
      throw Error(Status::kUnsupported, label + " (op " + QuoteName(node.op) +
                                          ") has subgraphs; control-flow operators are not supported");
    if (!sub->is_array()) Fail(label + " field \"subgraphs\" must be an array, got " + std::string(sub->type_name()));
    if (depth >= kMaxSubgraphDepth)
      Fail(label + " has subgraphs inside a subgraph: MXNet's fused operators nest " +
           std::to_string(kMaxSubgraphDepth) + " level deep at most");
    for (size_t i = 0; i < sub->size(); ++i) {
      try {
        node.subgraphs.push_back(ParseGraph((*sub)[i], depth + 1));
      } catch (const Error& e) {
        throw Error(e.status(), label + " subgraph " + std::to_string(i) + ": " + e.what());
      }
    }
  }
  return node;
}

const json& RequireArrayField(const json& root, const char* field) {
  auto it = root.find(field);
  if (it == root.end()) Fail(std::string("top-level object has no \"") + field + "\" field");
  if (!it->is_array()) Fail(std::string("top-level \"") + field + "\" must be an array, got " + it->type_name());
  return *it;
}

// "arg_nodes" is optional (missing in some old files) and only cross-checked, as MXNet does.
void CheckArgNodes(const json& root, const Graph& graph) {
  auto it = root.find("arg_nodes");
  if (it == root.end() || it->is_null()) return;
  if (!it->is_array()) Fail("top-level \"arg_nodes\" must be an array, got " + std::string(it->type_name()));
  for (size_t i = 0; i < it->size(); ++i) {
    const int node = ReadIndex((*it)[i], "arg_nodes[" + std::to_string(i) + "]");
    if (static_cast<size_t>(node) >= graph.nodes.size())
      Fail("arg_nodes[" + std::to_string(i) + "] refers to node " + std::to_string(node) + ", but the graph has " +
           std::to_string(graph.nodes.size()) + " nodes");
    const Node& n = graph.nodes[node];
    if (!n.is_variable())
      Fail("arg_nodes[" + std::to_string(i) + "] refers to " + NodeLabel(node, &n.name) + ", which is op " +
           QuoteName(n.op) + ", not a variable");
  }
}

Graph ParseGraph(const json& root, int depth) {
  if (!root.is_object()) Fail("top level must be an object, got " + std::string(root.type_name()));
  const json& nodes = RequireArrayField(root, "nodes");
  const json& heads = RequireArrayField(root, "heads");
  if (nodes.empty()) Fail("the graph is empty: \"nodes\" has no entries");
  if (heads.empty()) Fail("the graph has no outputs: \"heads\" has no entries");
  Graph graph;
  graph.nodes.reserve(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) graph.nodes.push_back(ParseNode(nodes[i], i, nodes.size(), depth));
  for (size_t i = 0; i < heads.size(); ++i)
    graph.outputs.push_back(ParseEntry(heads[i], "heads[" + std::to_string(i) + "]", nodes.size(), nodes.size()));
  CheckArgNodes(root, graph);
  return graph;
}

}  // namespace

Graph ParseSymbolJson(const std::string& text) {
  try {
    Graph graph = ParseGraph(ParseText(text), 0);
    ExpandMxnetSubgraphs(graph);
    return graph;
  } catch (const Error& e) {
    throw Error(e.status(), std::string("symbol JSON: ") + e.what());
  } catch (const json::exception& e) {
    // A type mismatch this parser did not anticipate: still a malformed file, never a crash.
    throw Error(Status::kParse, std::string("symbol JSON: unexpected structure: ") + e.what());
  }
}

Graph LoadSymbolJsonFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error(Status::kNotFound, "symbol file '" + path + "' is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(Status::kNotFound, "cannot open symbol file '" + path + "'");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw Error(Status::kNotFound, "cannot read symbol file '" + path + "'");
  try {
    return ParseSymbolJson(text);
  } catch (const Error& e) {
    throw Error(e.status(), "'" + path + "': " + e.what());
  }
}

}  // namespace qv
