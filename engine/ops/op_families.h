// Operator families, each written once where its members are registered: a backend registers one
// kernel for a whole family from these lists instead of spelling its members again.
#pragma once

#include <string>
#include <vector>

namespace qv {

// elemwise_* and broadcast_* arithmetic and comparisons of two tensors (ops/binary_math.h).
const std::vector<std::string>& BinaryOps();
// Element-wise math functions of one tensor (ops/unary_math.h).
const std::vector<std::string>& UnaryMathOps();
// Arithmetic and comparisons of a tensor with a scalar attribute (ops/scalar_arith.h).
const std::vector<std::string>& ScalarArithOps();
// Reductions over axes: sum, mean, max, min, prod (ops/reduce.h).
const std::vector<std::string>& ReduceOps();

}  // namespace qv
