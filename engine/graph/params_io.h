// Reading MXNet's binary NDArray-list format (.params files).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tensor/ndarray.h"

namespace qv {

struct NamedArrays {
  std::vector<NDArrayPtr> arrays;
  std::vector<std::string> names;  // as stored (with "arg:"/"aux:" prefixes); empty if the file has none
};

// Parses the bytes (array layouts V1, V2, V3 and the pre-0.9 one; arrays saved from a GPU load onto
// the CPU). bfloat16 arrays (MXNet's AMP, type flag 12) load as float32, widened exactly; float16
// ones keep their dtype. Throws Error(Status::kParse) with the byte offset and what was expected for a
// wrong magic, a truncated or corrupt file, a type flag MXNet never defined, a name count other than 0
// or the array count, a name with a NUL byte or malformed UTF-8, bytes after the names, or absurd sizes
// (checked against the bytes left before anything is allocated); Error(Status::kUnsupported) for
// sparse storage or an MXNet dtype Quiver lacks (bool, int16, uint16, uint32, uint64), both naming the
// array, for an array without a shape, or for a zip (.npz) file; Error(Status::kInvalidArgument) for
// null data with a non-zero size.
NamedArrays LoadParams(const void* data, size_t size);

// Reads a whole file and parses it; a missing file throws Error(Status::kNotFound) naming the path.
NamedArrays LoadParamsFile(const std::string& path);

// The bytes MXNet 1.x's `mx.nd.save` writes for these CPU arrays (the V2 layout; names as given, so
// pass "arg:"/"aux:" prefixes for a checkpoint). Every array needs a name when any has one.
std::string SaveParams(const NamedArrays& arrays);

}  // namespace qv
