// Concat: its inputs joined along one axis (attribute dim, default 1, negative counting from the end).
#pragma once

#include "ops/op.h"

namespace qv {

// The axis Concat joins along, for inputs of `shape`'s rank (the output's shape will do). Throws
// Error(Status::kShape) when `dim` is out of range.
int ConcatAxis(const Attrs& attrs, const Shape& shape);

}  // namespace qv
