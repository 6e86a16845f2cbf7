// Tensor shapes: a list of non-negative int64 dimensions, with overflow-checked element counts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace qv {

using Shape = std::vector<int64_t>;

// "(1, 3, 224, 224)"
std::string ShapeToString(const Shape& s);

// Product of the dimensions. Throws Error(Status::kShape) on a negative dimension and
// Error(Status::kOutOfMemory) when the count (or count * elem_size bytes) overflows int64.
int64_t ElementCount(const Shape& s);
int64_t ByteCount(const Shape& s, size_t elem_size);

// a * b and a + b, for shape arithmetic on a file's attributes. Throws Error(Status::kShape) saying
// `what` overflows int64, where the exact result does not fit.
int64_t CheckedMul(int64_t a, int64_t b, const std::string& what);
int64_t CheckedAdd(int64_t a, int64_t b, const std::string& what);

}  // namespace qv
