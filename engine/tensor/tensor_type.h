// A tensor's logical type: shape and element type, whatever its device or layout.
#pragma once

#include "common/dtype.h"
#include "common/shape.h"

namespace qv {

struct TensorType {
  Shape shape;
  DType dtype = DType::kFloat32;
};

}  // namespace qv
