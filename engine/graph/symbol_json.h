// Reading MXNet symbol JSON (every 1.x layout) into a Graph.
#pragma once

#include <string>

#include "graph/graph.h"

namespace qv {

// Parses symbol JSON. Checks the structure only (operators are checked against the registry later):
// throws Error(Status::kParse) with a message naming the node and field for malformed JSON, missing or
// mistyped fields, input references to missing or later nodes, bad head entries, or an empty graph;
// Error(Status::kUnsupported) for a node with subgraphs (control-flow operators).
// Node::attrs merges "param", "attr" and "attrs" ("attrs" wins on a clash). Non-string values written
// by some tools become MXNet's strings (true -> "True", [3, 3] -> "(3, 3)", null -> "None"); old plain
// training hints ("lr_mult", "weight_lr_mult", "ctx_group", ...) become hidden "__...__" keys.
Graph ParseSymbolJson(const std::string& json);

// Reads the file and parses it; a missing or unreadable file throws Error(Status::kNotFound) naming it.
Graph LoadSymbolJsonFile(const std::string& path);

}  // namespace qv
