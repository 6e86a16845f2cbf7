#include "ops/shape_ops.h"

namespace qv {
namespace {

std::vector<int64_t> RowMajorStrides(const Shape& s) {
  std::vector<int64_t> strides(s.size(), 1);
  for (int d = static_cast<int>(s.size()) - 2; d >= 0; --d) strides[d] = strides[d + 1] * s[d + 1];
  return strides;
}

// tile: each output axis split into (its repeat, the input's axis); the repeat reads the same elements
// again, with stride 0.
StridedRead TileRead(const Attrs& attrs, const Shape& in) {
  const Shape out = TileOutput(attrs, in);
  const std::vector<int64_t> in_strides = RowMajorStrides(in);
  const size_t lead = out.size() - in.size();  // axes that tile prepends to the input
  StridedRead read;
  for (size_t d = 0; d < out.size(); ++d) {
    const int64_t x = d < lead ? 1 : in[d - lead];
    read.out.push_back(out[d] / x);
    read.strides.push_back(0);
    read.out.push_back(x);
    read.strides.push_back(d < lead ? 0 : in_strides[d - lead]);
  }
  return read;
}

// repeat: after each of the input's axes an axis of its copies, read with stride 0: `repeats` after the
// repeated axis, 1 (dropped by Compact) after the others. Without an axis the input is read flat.
StridedRead RepeatRead(const Attrs& attrs, const Shape& in) {
  const Shape out = RepeatOutput(attrs, in);
  const Shape view = out.size() == in.size() ? in : Shape{ElementCount(in)};
  const std::vector<int64_t> view_strides = RowMajorStrides(view);
  StridedRead read;
  for (size_t d = 0; d < view.size(); ++d) {
    read.out.push_back(view[d]);
    read.strides.push_back(view_strides[d]);
    read.out.push_back(out[d] / view[d]);
    read.strides.push_back(0);
  }
  return read;
}

// The same read over fewer axes: size-1 axes dropped, and an axis merged into the next one when it
// steps exactly over it (a stride-0 axis before another stride-0 axis included).
void Compact(StridedRead* read) {
  Shape out;
  std::vector<int64_t> strides;
  for (size_t d = 0; d < read->out.size(); ++d) {
    if (read->out[d] == 1) continue;
    if (!out.empty() && strides.back() == read->strides[d] * read->out[d]) {
      out.back() *= read->out[d];
      strides.back() = read->strides[d];
      continue;
    }
    out.push_back(read->out[d]);
    strides.push_back(read->strides[d]);
  }
  if (out.empty()) {
    out.push_back(1);
    strides.push_back(0);
  }
  read->out = std::move(out);
  read->strides = std::move(strides);
}

StridedRead UncompactedRead(const Attrs& attrs, const std::vector<Shape>& inputs) {
  const Shape& in = inputs[0];
  if (attrs.op() == "tile") return TileRead(attrs, in);
  if (attrs.op() == "repeat") return RepeatRead(attrs, in);
  const std::vector<int64_t> in_strides = RowMajorStrides(in);
  StridedRead read;
  if (attrs.op() == "broadcast_axis" || attrs.op() == "broadcast_to" || attrs.op() == "broadcast_like") {
    read.out = BroadcastToOutput(attrs, inputs);
    for (size_t d = 0; d < in.size(); ++d) read.strides.push_back(in[d] == 1 ? 0 : in_strides[d]);
    return read;
  }
  if (attrs.op() == "transpose" || attrs.op() == "SwapAxis") {
    const bool swap = attrs.op() == "SwapAxis";
    for (int64_t a : swap ? SwapAxisAxes(attrs, in.size()) : TransposeAxes(attrs, in.size())) {
      read.out.push_back(in[a]);
      read.strides.push_back(in_strides[a]);
    }
    return read;
  }
  if (attrs.op() == "reverse") {
    const std::vector<bool> reversed = ReversedAxes(attrs, in.size());
    read.out = in;
    for (size_t d = 0; d < in.size(); ++d) {
      read.strides.push_back(reversed[d] ? -in_strides[d] : in_strides[d]);
      if (reversed[d]) read.offset += (in[d] - 1) * in_strides[d];
    }
    return read;
  }
  const SliceWindow w = attrs.op() == "slice_like" ? ResolveSliceLike(attrs, in, inputs[1])
                        : attrs.op() == "Crop"     ? ResolveCrop(attrs, inputs)
                                                   : ResolveSlice(attrs, in);
  read.out = w.out;
  for (size_t d = 0; d < in.size(); ++d) {
    read.offset += w.begin[d] * in_strides[d];
    read.strides.push_back(w.step[d] * in_strides[d]);
  }
  return read;
}

}  // namespace

StridedRead ResolveStridedRead(const Attrs& attrs, const std::vector<Shape>& inputs) {
  StridedRead read = UncompactedRead(attrs, inputs);
  Compact(&read);
  return read;
}

}  // namespace qv
