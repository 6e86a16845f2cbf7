// A graph with its parameters bound: the form that inference-time passes rewrite and plans compile.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "graph/fusion_rules.h"
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

// The variable a parameter file's key binds to: the key without MXNet's "arg:" or "aux:" prefix.
std::string ParamName(const std::string& key);

// Binds `params` (names with or without "arg:"/"aux:" prefixes) to the graph's variables, copying
// them. Drops inputs that inference never reads; every other unbound variable becomes a data input.
// Throws Status::kNotFound for a weight-like input with no parameter and Status::kShape for a parameter
// whose shape the operator rejects, naming both.
BoundGraph BindParameters(const Graph& graph, const std::map<std::string, NDArrayPtr>& params);

// Inference-time rewrites, in the order Optimize applies them. The fusions are those `rules` (the
// target backend's) allow.
// MXNet's AMP casts in float32 storage: amp_cast to float32 and amp_multicast (identities here) are
// removed, so they never stand between a convolution and what fuses into it; amp_cast to bfloat16 or
// float16 of a parameter becomes the rounded parameter, rounded once here instead of per invocation.
void FoldCasts(BoundGraph& g);
// Divisions of integer tensors (integer_division.cc) truncate their quotient, as MXNet's do; before
// RemoveIdentities, which drops the casts back to float32 that end integer tensors.
void TruncateIntegerDivisions(BoundGraph& g);
void RemoveIdentities(BoundGraph& g);  // Dropout, _copy, BlockGrad, Cast to float32
// Reshape, expand_dims, squeeze, Flatten, reshape_like, transpose, SwapAxis, slice, slice_axis,
// Concat, stack and Cast nodes whose inputs are all parameters become parameters (fold_constants.cc):
// weights that a graph reshapes or joins (GluonNLP's projections, the fused RNN's _rnn_param_concat)
// stay parameters, which the kernels pack once.
void FoldConstantMoves(BoundGraph& g);
// An RNN whose begin states are all `_zeros` with a size left to shape inference (Gluon's exports
// leave the batch size 0) reads no state inputs: its kernel starts from zeros.
void DropZeroBeginStates(BoundGraph& g);
// The other `_zeros` / `_ones` with a size left to inference take it from a consumer, as MXNet's shape
// inference does (unrolled cells' begin states meet the batch in an elementwise op, possibly through
// FullyConnected): each becomes broadcast_like(the fill with size 1 there, that operand).
void InferFillSizes(BoundGraph& g);
void FoldBatchNorm(BoundGraph& g);     // Convolution -> BatchNorm becomes one Convolution
// An element-wise node (relu, clip, leaky) becomes a post-op of the node producing its input.
void FuseActivations(BoundGraph& g, const FusionRules& rules);
// elemwise_add of a node's output and another tensor becomes a kSum post-op of that node.
void FuseResidualAdd(BoundGraph& g, const FusionRules& rules);
// A convolution whose output only 1x1 convolutions of stride s (no padding) read computes one pixel in
// s itself, and those readers take stride 1; a residual it adds is subsampled by a 1x1 max pooling
// (propagate_strides.cc). After the fusions, so that the post-ops and residual move with it.
void PropagateStrides(BoundGraph& g);
void Optimize(BoundGraph& g, const FusionRules& rules);

}  // namespace qv
