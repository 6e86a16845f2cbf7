#pragma once

#include "ops/op.h"

namespace qv {

enum class ActType { kRelu, kSigmoid, kTanh, kSoftRelu, kSoftSign };

// The function a node computes: Activation's act_type (failing with the node's name on an unknown
// type), or the one that relu and sigmoid imply.
ActType ParseActType(const Attrs& attrs);

}  // namespace qv
