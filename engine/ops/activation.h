#pragma once

#include "ops/op.h"

namespace qv {

enum class ActType { kRelu, kSigmoid, kTanh, kSoftRelu, kSoftSign };

// Activation's act_type, failing with the node's name on an unknown type.
ActType ParseActType(const Attrs& attrs);

}  // namespace qv
