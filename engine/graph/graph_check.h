// Operator-level checks of a parsed graph, against the operator registry.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"

namespace qv {

// Symbols older than MXNet 0.9 leave BatchNorm's auxiliary states (moving_mean, moving_var) out of
// the node's inputs; MXNet then creates variables "<node>_moving_mean" / "<node>_moving_var". So
// does this, appending them to the node list.
void AddImplicitAuxiliaryStates(Graph& graph);

// Every operator is registered (else Status::kUnsupported naming operator and node), its attributes
// parse, it has as many inputs as it takes, and every input refers to an existing output.
void CheckGraphOperators(const Graph& graph);

// Node ids reachable from the outputs, inputs before the nodes that use them. Iterative, so deep
// graphs do not exhaust the stack.
std::vector<int> TopologicalOrder(const Graph& graph);

// Variable nodes in MXNet's list_inputs order (depth-first from the outputs).
std::vector<int> ListVariables(const Graph& graph);

// MXNet's output names: "<node>_output" (a variable: its own name; several outputs: "_output<i>").
std::vector<std::string> ListOutputNames(const Graph& graph);

int NumOutputs(const Node& node);

}  // namespace qv
