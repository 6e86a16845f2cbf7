// SliceChannel (split) and stack: the data cut into equal parts along an axis, and inputs joined along
// a new axis. Both move rows: with the data viewed as (outer, parts, row), part p is the rows
// (o, p, :) for every o.
#pragma once

#include "ops/op.h"

namespace qv {

struct RowBlocks {
  int64_t outer = 1;  // elements before the axis
  int64_t parts = 1;  // outputs of SliceChannel, inputs of stack
  int64_t row = 1;    // elements of one part per outer index
};

// SliceChannel(num_outputs, axis=1, squeeze_axis=False) of data of shape `input`.
RowBlocks ResolveSplit(const Attrs& attrs, const Shape& input);
// stack(num_args, axis=0) of inputs of shape `input`.
RowBlocks ResolveStack(const Attrs& attrs, const Shape& input);

}  // namespace qv
