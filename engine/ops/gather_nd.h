// gather_nd (MXNet's src/operator/tensor/indexing_op.h): indices of shape (M, Y...) pick, for each
// position y, the slice data[indices[0, y], ..., indices[M-1, y], :]; the output is (Y..., data's
// axes after the first M). Indices are float32 whole numbers; as MXNet, index v along an axis of size d
// is valid when -d <= v <= d - 1 and reads element int(v + d) % d (truncated toward zero).
#pragma once

#include <cstdint>
#include <vector>

#include "ops/gather_nd_math.h"
#include "ops/op.h"

namespace qv {

struct GatherNDGeometry {
  std::vector<int64_t> dims;     // the first M axes of data
  std::vector<int64_t> strides;  // their strides, in elements
  int64_t positions = 1;         // Y: product of indices' axes after the first
  int64_t slice = 1;             // elements copied per position
  static GatherNDGeometry Resolve(const Attrs& attrs, const Shape& data, const Shape& indices);
};

}  // namespace qv
