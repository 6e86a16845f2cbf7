// A bound graph's output types for given input types, by the operators' shape inference alone: what a
// plan for those inputs would return, without compiling one (bucketing asks it of every length).
#pragma once

#include <map>
#include <vector>

#include "graph/bound_graph.h"
#include "tensor/tensor_type.h"

namespace qv {

// `constants`: the type of each parameter, by variable node id; `inputs`: one per data input, in invoke
// order. Data inputs are read as float32, as plans convert them. Throws what an operator's shape
// inference throws (Status::kShape naming the node) for inputs the graph cannot take.
std::vector<TensorType> InferOutputTypes(const BoundGraph& graph, const std::map<int, TensorType>& constants,
                                         const std::vector<TensorType>& inputs);

}  // namespace qv
