// MXNet's AMP casts (mxnet.contrib.amp): amp_cast and amp_multicast. Quiver holds every tensor in
// float32, so a cast to a narrower float type is a rounding that keeps float32 storage, and a cast to
// float32 is the identity (widening bfloat16 or float16 to float32 is exact).
#pragma once

#include "ops/op.h"

namespace qv {

enum class AmpTarget { kFloat32, kFloat16, kBFloat16 };

// amp_cast's `dtype`: float32, float16 or bfloat16; another type fails with Status::kUnsupported
// naming the node (MXNet's AMP only writes these three).
AmpTarget ParseAmpCast(const Attrs& attrs);

// amp_multicast's `num_outputs` (>= 1). `cast_narrow=True` fails with Status::kUnsupported: see
// amp_cast.cc for why Quiver cannot reproduce it.
int ParseAmpMultiCast(const Attrs& attrs);

// The bfloat16 nearest to x, as MXNet's amp_cast computes it on the CPU (oneDNN's conversion):
// round to nearest, ties to even; overflow gives infinity; float32 subnormals become a zero of the
// same sign; a NaN stays a NaN (its payload truncated, quiet bit set).
float RoundToBFloat16(float x);

// The float16 nearest to x (round to nearest, ties to even, float16 subnormals kept, overflow to
// infinity), as MXNet's amp_cast to float16 and numpy's astype(float16) compute it.
float RoundToFloat16(float x);

// x rounded to `target`.
float RoundTo(AmpTarget target, float x);

}  // namespace qv
