// Operators that are the identity at inference (Dropout, identity, _copy, BlockGrad, stop_gradient).
#pragma once

#include <string>

namespace qv {

// True for the operators graph passes remove before plans are compiled (they have no kernels).
bool IsIdentityOp(const std::string& op);

}  // namespace qv
