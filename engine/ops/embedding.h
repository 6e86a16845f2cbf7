// Embedding (indexing_op.h): rows of a (input_dim, output_dim) weight picked by ids. As MXNet 1.9.1
// does, an id given as a float is truncated toward zero, then clipped into [0, input_dim - 1].
#pragma once

#include "ops/op.h"

namespace qv {

struct EmbeddingParams {
  int64_t input_dim = 0;
  int64_t output_dim = 0;
  static EmbeddingParams Parse(const Attrs& attrs);
};

// The weight row id `id` reads (the truncation and clipping above).
inline int64_t EmbeddingRow(float id, int64_t input_dim) {
  if (!(id > 0)) return 0;  // negative ids and NaN
  if (id >= static_cast<float>(input_dim)) return input_dim - 1;
  return static_cast<int64_t>(id);
}

}  // namespace qv
