// Operators whose output values do not depend on input values: zeros_like, ones_like, shape_array and
// _contrib_arange_like (the input gives only the shape), _zeros, _ones and _arange (no input at all).
// shape_array's int64 shape is held as float32 whole numbers, exact up to 2^24 per axis (checked).
#pragma once

#include <vector>

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

// _contrib_arange_like(start=0, step=1, repeat=1, axis=None): as many values as the input has
// elements (or elements along `axis`), value i = start + (i / repeat) * step in float32 as MXNet
// computes it.
std::vector<float> ArangeLikeValues(const Attrs& attrs, const Shape& output);
// Its output shape for an input of shape `input`.
Shape ArangeLikeShape(const Attrs& attrs, const Shape& input);

// shape_array's values: the input's dimensions.
std::vector<float> ShapeArrayValues(const Attrs& attrs, const Shape& input);

}  // namespace qv
