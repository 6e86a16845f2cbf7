// Two-input arithmetic and comparisons: elemwise_* and the other equal-shape forms (_maximum, _power,
// _equal, ...), and broadcast_* (numpy broadcasting).
#pragma once

#include "ops/binary_math.h"
#include "ops/op.h"

namespace qv {

// The function an operator name stands for ("elemwise_sub", "_Minus", "broadcast_lesser", ...).
BinaryMath BinaryMathOf(const std::string& op);

}  // namespace qv
