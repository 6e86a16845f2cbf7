// Operators whose output values do not depend on input values: zeros_like and ones_like (the input
// gives only the shape), _zeros, _ones and _arange (no input at all).
#pragma once

#include "ops/op.h"

namespace qv {

// _arange(start, stop, step, repeat): ceil((stop - start) / step) values start + k * step, each
// repeated `repeat` times; with stop None the range is [0, start).
struct ArangeSpec {
  double start = 0, step = 1;
  int64_t count = 0;  // distinct values
  int64_t repeat = 1;
  int64_t size() const { return count * repeat; }
};
ArangeSpec ResolveArange(const Attrs& attrs);

}  // namespace qv
