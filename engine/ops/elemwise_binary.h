// Two-input arithmetic: elemwise_* (equal shapes) and broadcast_* (numpy broadcasting).
#pragma once

#include "ops/op.h"

namespace qv {

enum class BinaryOp { kAdd, kSub, kMul, kDiv };

// The arithmetic an operator name stands for ("elemwise_sub", "_Minus", "broadcast_div", ...).
BinaryOp BinaryOpOf(const std::string& op);

}  // namespace qv
