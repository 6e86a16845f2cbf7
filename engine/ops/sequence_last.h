// SequenceLast (sequence_last-inl.h): the last step of each sequence of data laid out (T, N, ...) for
// axis 0 or (N, T, ...) for axis 1; with use_sequence_length, sequence n ends at step
// sequence_length[n] - 1 (a float length truncated toward zero). MXNet reads outside the data for a
// length below 1 or above T; Quiver clamps the length into [1, T] instead.
#pragma once

#include "ops/op.h"

namespace qv {

struct SequenceLastGeometry {
  int64_t steps = 0, batch = 0, row = 1;  // row: elements per (step, sequence)
  bool batch_major = false;               // axis 1: (N, T, ...)
  bool use_length = false;
};
SequenceLastGeometry ResolveSequenceLast(const Attrs& attrs, const Shape& data);

// The step sequence n ends at, from its float length.
inline int64_t SequenceLastStep(float length, int64_t steps) {
  if (!(length >= 1)) return 0;
  return length >= static_cast<float>(steps) ? steps - 1 : static_cast<int64_t>(length) - 1;
}

}  // namespace qv
