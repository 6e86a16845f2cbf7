#pragma once

#include "ops/op.h"

namespace qv {

struct ClipBounds {
  float lo = 0.f, hi = 0.f;
};

// clip's a_min and a_max: both required, a_min <= a_max.
ClipBounds ParseClip(const Attrs& attrs);

}  // namespace qv
