// GroupNorm(num_groups=1, eps=1e-5) as MXNet 1.9.1 defines it (src/operator/nn/group_norm-inl.h): the
// channels of each sample split into num_groups groups, each normalised by its own mean and (biased)
// variance as (x - mean) / sqrt(var + eps), then scaled and shifted by gamma and beta, which hold one
// value per group (not per channel).
#pragma once

#include <cstdint>

#include "ops/op.h"

namespace qv {

// Data (batch, channels, spatial...) seen as batch * groups contiguous groups of `group_size` values.
struct GroupNormGeometry {
  int64_t batch = 1, channels = 1, groups = 1, spatial = 1;
  int64_t group_size = 1;  // channels / groups * spatial
  float eps = 1e-5f;
};
GroupNormGeometry ResolveGroupNorm(const Attrs& attrs, const Shape& data);

}  // namespace qv
