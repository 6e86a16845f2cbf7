// gather_nd's index rule, one definition for both backends (ops/gather_nd.h says what it is).
#pragma once

#include <cstdint>

#include "ops/host_device.h"

namespace qv {

// The element an index addresses along an axis of size `dim`, or -1 when it is out of range.
QV_HOST_DEVICE inline int64_t GatherNDCoordinate(float v, int64_t dim) {
  const float d = static_cast<float>(dim);
  if (!(v >= -d && v <= d - 1)) return -1;
  return static_cast<int64_t>(v + d) % dim;
}

}  // namespace qv
