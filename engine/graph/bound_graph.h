// A graph with its parameters bound: the form that inference-time passes rewrite and plans compile.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "tensor/ndarray.h"

namespace qv {

struct BoundGraph {
  Graph graph;
  std::map<int, NDArrayPtr> constants;  // variable node id -> its parameter's value
  std::vector<int> data_inputs;         // variable node ids, in invoke order
  std::vector<std::string> input_names;
  std::vector<std::string> output_names;
};

// Binds `params` (names with or without "arg:"/"aux:" prefixes) to the graph's variables, copying
// them. Drops inputs that inference never reads; every other unbound variable becomes a data input.
// Throws QV_ERR_NOT_FOUND for a weight-like input with no parameter and QV_ERR_SHAPE for a parameter
// whose shape the operator rejects, naming both.
BoundGraph BindParameters(const Graph& graph, const std::map<std::string, NDArrayPtr>& params);

// Inference-time rewrites, in the order Optimize applies them.
void RemoveIdentities(BoundGraph& g);    // Dropout, identity, _copy, BlockGrad
void FoldBatchNorm(BoundGraph& g);       // Convolution -> BatchNorm becomes one Convolution
void FuseActivations(BoundGraph& g);     // Convolution -> relu/clip/leaky, BatchNorm -> relu: one node
void FuseResidualAdd(BoundGraph& g);     // Convolution -> elemwise_add (-> relu) becomes one node
void Optimize(BoundGraph& g);

}  // namespace qv
