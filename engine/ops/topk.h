// topk (MXNet's src/operator/tensor/ordering_op-inl.h): the k largest (or smallest) elements along an
// axis, or of the flattened data when axis is None; argsort: the indices of all of them, ascending by
// default. Indices are whole numbers held in float32, exact while an axis has at most 2^24 elements
// (checked).
#pragma once

#include <cstdint>

#include "ops/op.h"

namespace qv {

enum class TopKReturn { kValue, kIndices, kMask, kBoth };

// The data viewed as (outer, n, inner) with n the elements sorted together; axis None gives (1, size, 1).
struct TopKParams {
  TopKReturn ret = TopKReturn::kIndices;
  bool ascend = false;
  int64_t outer = 1, n = 1, inner = 1;
  int64_t k = 1;  // k <= 0 in the attributes selects all n
  Shape selected;  // the value and index outputs' shape (the mask's is the input's)
  static TopKParams Resolve(const Attrs& attrs, const Shape& input);
};

}  // namespace qv
