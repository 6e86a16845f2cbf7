#include "ops/shape_ops.h"

namespace qv {
namespace {

std::vector<int64_t> RowMajorStrides(const Shape& s) {
  std::vector<int64_t> strides(s.size(), 1);
  for (int d = static_cast<int>(s.size()) - 2; d >= 0; --d) strides[d] = strides[d + 1] * s[d + 1];
  return strides;
}

}  // namespace

StridedRead ResolveStridedRead(const Attrs& attrs, const std::vector<Shape>& inputs) {
  const Shape& in = inputs[0];
  const std::vector<int64_t> in_strides = RowMajorStrides(in);
  StridedRead read;
  if (attrs.op() == "transpose") {
    for (int64_t a : TransposeAxes(attrs, in.size())) {
      read.out.push_back(in[a]);
      read.strides.push_back(in_strides[a]);
    }
    return read;
  }
  const SliceWindow w =
      attrs.op() == "slice_like" ? ResolveSliceLike(attrs, in, inputs[1]) : ResolveSlice(attrs, in);
  read.out = w.out;
  for (size_t d = 0; d < in.size(); ++d) {
    read.offset += w.begin[d] * in_strides[d];
    read.strides.push_back(w.step[d] * in_strides[d]);
  }
  return read;
}

}  // namespace qv
