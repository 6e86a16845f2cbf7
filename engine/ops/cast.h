// Cast(dtype): Quiver holds every tensor in float32, so a cast to float32 is a copy, and a cast to
// int32 or int64 (BERT casts its valid lengths) truncates towards zero as C++'s conversion does and
// keeps the whole numbers in float32 (exact up to 2^24). Other targets are refused.
#pragma once

#include "ops/op.h"

namespace qv {

// True when the cast truncates (integer targets); throws Error(Status::kUnsupported) for other types.
bool CastTruncates(const Attrs& attrs);

}  // namespace qv
