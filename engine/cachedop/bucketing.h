// Bucketing (flags `buckets` and `bucket_axis`), as MXNet's BucketingModule did for sequence models:
// a request whose sequence length (its inputs' size along the bucket axis) is not a bucket runs padded
// with zeros up to the next bucket, and its outputs are cut back to what the unpadded run would have
// given them (their shapes by shape inference at the real length). So an op compiles plans per bucket,
// not per length, and requests of one bucket share dynamic batches. The padding changes nothing only
// where the model ignores padded positions: a valid-length input (BERT's), a causal layer (a forward
// LSTM's outputs); the user who sets the flag says the model is such.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/shape.h"

namespace qv {

struct BucketOptions {
  std::vector<int64_t> lengths;  // ascending, distinct; empty: no bucketing
  int axis = 1;                  // the sequence axis of every input with that many dimensions

  bool enabled() const { return !lengths.empty(); }
  // Flag `buckets`: "32,64,128" (any order; "" for none). Throws Status::kInvalidArgument naming what it cannot parse.
  static std::vector<int64_t> ParseLengths(const std::string& value);
  // The smallest bucket that holds `length`; Status::kShape naming `what` when none does.
  int64_t BucketFor(int64_t length, const std::string& what) const;
};

// Copies the block of elements that two arrays of one rank share from the origin (in every dimension
// the smaller of the two sizes): padding `from` into a bigger `to`, or cutting a bigger `from` down to
// `to`. Elements of `to` outside the block are left as they are.
void CopySharedBlock(const void* from, const Shape& from_shape, void* to, const Shape& to_shape,
                     size_t element_bytes);

}  // namespace qv
