#pragma once

#include "ops/op.h"

namespace qv {

// Softmax as (outer, axis, inner) over the input viewed in row-major order.
struct SoftmaxGeometry {
  int64_t outer = 1, axis = 1, inner = 1;
  double temperature = 1.0;
  bool use_length = false;  // softmax(use_length=True): a second input of lengths, one per lane
};

// softmax(axis=-1, temperature, use_length), SoftmaxActivation (mode instance or channel) and SoftmaxOutput /
// Softmax (multi_output, preserve_shape).
SoftmaxGeometry ResolveSoftmax(const Attrs& attrs, const Shape& input);

}  // namespace qv
