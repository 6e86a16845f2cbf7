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

// Parses the bytes. Throws Error(QV_ERR_PARSE) with the byte offset and what was expected for a wrong
// magic, a truncated or corrupt file, or absurd sizes (checked against the bytes left before anything
// is allocated); Error(QV_ERR_UNSUPPORTED) for sparse storage or an unknown dtype.
NamedArrays LoadParams(const void* data, size_t size);

// Reads a whole file and parses it; a missing file throws Error(QV_ERR_NOT_FOUND) naming the path.
NamedArrays LoadParamsFile(const std::string& path);

}  // namespace qv
