#include "common/shape.h"

#include <limits>

#include "common/error.h"

namespace qv {

std::string ShapeToString(const Shape& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(s[i]);
  }
  if (s.size() == 1) out += ",";
  return out + ")";
}

int64_t ElementCount(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) {
    Check(d >= 0, Status::kShape, "negative dimension in shape " + ShapeToString(s));
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d)
      throw Error(Status::kOutOfMemory, "shape " + ShapeToString(s) + " has more elements than int64 can count");
    n *= d;
  }
  return n;
}

int64_t CheckedMul(int64_t a, int64_t b, const std::string& what) {
  int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) throw Error(Status::kShape, what + " overflows int64");
  return product;
}

int64_t CheckedAdd(int64_t a, int64_t b, const std::string& what) {
  int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) throw Error(Status::kShape, what + " overflows int64");
  return sum;
}

int64_t ByteCount(const Shape& s, size_t elem_size) {
  int64_t n = ElementCount(s);
  const int64_t es = static_cast<int64_t>(elem_size);
  if (es != 0 && n > std::numeric_limits<int64_t>::max() / es)
    throw Error(Status::kOutOfMemory, "shape " + ShapeToString(s) + " is too large to allocate");
  return n * es;
}

}  // namespace qv
