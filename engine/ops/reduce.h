// Reductions over axes: sum, mean, max, min and prod, with MXNet's axis / keepdims / exclude.
#pragma once

#include <string>

#include "ops/op.h"

namespace qv {

enum class ReduceKind { kSum, kMean, kMax, kMin, kProd };
ReduceKind ReduceKindOf(const std::string& op);

// The input's shape with every reduced axis set to 1: the output's row-major layout, whatever keepdims
// says (keepdims only decides whether those 1s are kept in the output's shape).
Shape ReducedKeepingDims(const Attrs& attrs, const Shape& input);

}  // namespace qv
