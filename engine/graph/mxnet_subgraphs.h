// MXNet's oneDNN exports, rewritten into Quiver's own operators when a model is loaded.
//
// MXNet 1.9 saves models its oneDNN backend rewrote (`get_backend_symbol`, and every model of
// `mxnet.contrib.quantization.quantize_net`) with fused operators, `_sg_mkldnn_conv` and
// `_sg_mkldnn_fully_connected`, each carrying the nodes it fused as a subgraph. Those subgraphs are
// inlined here; Quiver's graph passes fuse them again for the backend that runs them.
//
// An int8 model becomes its float32 model plus int8 hints on each quantized convolution and inner
// product (ops/int8_hints.h), which precision int8 follows and other precisions ignore:
// `_contrib_quantize_v2`, `_contrib_requantize` and `_contrib_dequantize` disappear (how they quantize
// is what the hints say about the tensors between quantized layers), `_contrib_quantized_pooling`,
// `_flatten`, `_act` and `_concat` become the plain operators, and the min/max outputs that carry
// ranges between MXNet's operators are dropped. Other quantized operators are refused, naming them. An
// inner product's int8 weights become, when the parameters are bound (DequantizeInt8Params), float32
// parameters holding the values MXNet's kernel computes with.
#pragma once

#include <map>
#include <string>

#include "graph/graph.h"
#include "tensor/ndarray.h"

namespace qv {

// True for the fused operators whose subgraphs ExpandMxnetSubgraphs inlines.
bool IsMxnetFusedOp(const std::string& op);

// Rewrites `graph` in place (symbol files are read through it). Throws Error(Status::kUnsupported)
// naming a node it cannot rewrite.
void ExpandMxnetSubgraphs(Graph& graph);

// Replaces the int8 parameters ExpandMxnetSubgraphs marked by float32 ones. Throws Error naming a
// missing or mistyped parameter.
void DequantizeInt8Params(const Graph& graph, std::map<std::string, NDArrayPtr>& params);

// The number of nodes carrying int8 hints (nonzero: the model can run at precision int8).
int CountInt8Nodes(const Graph& graph);

}  // namespace qv
