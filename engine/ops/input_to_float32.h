// Quiver computes in float32: a data input of another element type (flag data_types, or the symbol's
// "__dtype__") reaches the graph through this conversion, which the plan puts first. Not an MXNet
// operator and never in a model file. Whole numbers keep their value up to 2^24 in magnitude, as MXNet
// models that take float32 ids have them; larger int32/int64 values round to the nearest float32.
#pragma once

#include "common/dtype.h"

namespace qv {

inline constexpr const char* kInputToFloat32 = "_input_to_float32";

// The element types an input may have: float32 itself, and those this conversion takes.
inline bool IsInputDType(DType t) { return t != DType::kFloat16; }

}  // namespace qv
