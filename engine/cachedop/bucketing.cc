#include "cachedop/bucketing.h"

#include <algorithm>
#include <cstring>

#include "common/error.h"
#include "common/flags.h"

namespace qv {

std::vector<int64_t> BucketOptions::ParseLengths(const std::string& value) {
  std::vector<int64_t> lengths;
  if (value.empty()) return lengths;  // the default: no bucketing
  for (size_t start = 0; start <= value.size();) {
    size_t end = value.find(',', start);
    if (end == std::string::npos) end = value.size();
    lengths.push_back(ParseIntegerFlag("buckets", value.substr(start, end - start), 1, int64_t{1} << 30));
    start = end + 1;
  }
  std::sort(lengths.begin(), lengths.end());
  lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
  return lengths;
}

int64_t BucketOptions::BucketFor(int64_t length, const std::string& what) const {
  const auto it = std::lower_bound(lengths.begin(), lengths.end(), length);
  Check(it != lengths.end(), Status::kShape,
        what + " has length " + std::to_string(length) + " on axis " + std::to_string(axis) +
            ", longer than the largest bucket (" + std::to_string(lengths.back()) + ")");
  return *it;
}

void CopySharedBlock(const void* from, const Shape& from_shape, void* to, const Shape& to_shape,
                     size_t element_bytes) {
  Check(from_shape.size() == to_shape.size(), Status::kInternal,
        "CopySharedBlock: shapes " + ShapeToString(from_shape) + " and " + ShapeToString(to_shape) +
            " differ in rank");
  const size_t rank = from_shape.size();
  Shape block(rank);
  for (size_t d = 0; d < rank; ++d) block[d] = std::min(from_shape[d], to_shape[d]);
  if (rank == 0) {
    std::memcpy(to, from, element_bytes);
    return;
  }
  for (int64_t d : block)
    if (d == 0) return;
  // Row-major strides, in elements; the innermost dimension's run is copied at once.
  std::vector<int64_t> from_stride(rank, 1), to_stride(rank, 1);
  for (size_t d = rank - 1; d > 0; --d) {
    from_stride[d - 1] = from_stride[d] * from_shape[d];
    to_stride[d - 1] = to_stride[d] * to_shape[d];
  }
  const size_t run = static_cast<size_t>(block[rank - 1]) * element_bytes;
  const auto* src = static_cast<const char*>(from);
  auto* dst = static_cast<char*>(to);
  std::vector<int64_t> index(rank, 0);  // over the block's outer dimensions
  for (;;) {
    int64_t f = 0, t = 0;
    for (size_t d = 0; d + 1 < rank; ++d) {
      f += index[d] * from_stride[d];
      t += index[d] * to_stride[d];
    }
    std::memcpy(dst + t * static_cast<int64_t>(element_bytes), src + f * static_cast<int64_t>(element_bytes), run);
    size_t d = rank - 1;
    while (d > 0 && ++index[d - 1] == block[d - 1]) index[--d] = 0;
    if (d == 0) return;
  }
}

}  // namespace qv
