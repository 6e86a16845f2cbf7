// Geometry of the operators that only move data: Reshape, expand_dims, squeeze, reshape_like, transpose,
// SwapAxis, reverse, slice, slice_axis, slice_like, Crop, tile, repeat, broadcast_axis, broadcast_to,
// broadcast_like.
#pragma once

#include <vector>

#include "ops/op.h"

namespace qv {

// Reshape's output shape from its `shape` attribute and MXNet's special codes (see reshape.cc).
Shape ReshapeOutput(const Attrs& attrs, const Shape& input);

// transpose's permutation: `axes` (each axis once, none negative), or the reversed axes when empty.
std::vector<int64_t> TransposeAxes(const Attrs& attrs, size_t ndim);

// squeeze's output: the size-1 axes named by `axis` (all of them when absent) removed; (1) if none is left.
Shape SqueezeOutput(const Attrs& attrs, const Shape& input);
// reshape_like's output: lhs[:lhs_begin] + rhs[rhs_begin:rhs_end] + lhs[lhs_end:], with lhs's size.
Shape ReshapeLikeOutput(const Attrs& attrs, const Shape& lhs, const Shape& rhs);

// SwapAxis's permutation: the identity with dim1 and dim2 exchanged (negative axes count from the end).
std::vector<int64_t> SwapAxisAxes(const Attrs& attrs, size_t ndim);

// reverse's axes: whether each of the data's axes comes out reversed (an axis named twice is reversed
// twice, as MXNet's kernel does it: not at all).
std::vector<bool> ReversedAxes(const Attrs& attrs, size_t ndim);

// A strided window of the input: output index i along axis d reads input index begin[d] + i * step[d].
struct SliceWindow {
  Shape out;
  std::vector<int64_t> begin, step;
};
// slice (begin/end/step tuples, None allowed) and slice_axis (one axis, end may be None).
SliceWindow ResolveSlice(const Attrs& attrs, const Shape& input);
// slice_like: the leading part of `input` with `like`'s size along `axes` (every axis when empty).
SliceWindow ResolveSliceLike(const Attrs& attrs, const Shape& input, const Shape& like);
// Crop (MXNet's legacy operator): a spatial window of 4-D data; `inputs` the node's input shapes.
SliceWindow ResolveCrop(const Attrs& attrs, const std::vector<Shape>& inputs);

// tile's output shape: `reps` lined up with the input's last axes, the shorter of the two padded with
// leading 1s (MXNet's and numpy's rule); every entry at least 1.
Shape TileOutput(const Attrs& attrs, const Shape& input);
// repeat's output shape: `axis` (negative counts from the end) `repeats` times longer, or without an
// axis the flattened input, `repeats` times longer.
Shape RepeatOutput(const Attrs& attrs, const Shape& input);

// broadcast_axis, broadcast_to and broadcast_like's output shape, of the same rank as the data, whose
// every axis is the output's size or 1. `inputs`: the node's input shapes.
Shape BroadcastToOutput(const Attrs& attrs, const std::vector<Shape>& inputs);

// Where transpose, SwapAxis, reverse, slice, slice_axis, slice_like, Crop, tile, repeat and the
// broadcasts read their row-major input: the output element at row-major coordinates c over `out` reads
// input element offset + sum_d c_d * strides[d]. A stride is permuted by a transpose, negative along a
// reversed axis or in a reversed slice, and 0 along an axis that reads the same elements again (tile,
// repeat, a broadcast size-1 axis). `out` is the output's shape or a view of it with the same row-major
// order: axes of size 1 dropped, axes that read consecutively merged, and for tile and repeat an axis
// split in two (a repeat count and the input's axis). It has at least one axis.
struct StridedRead {
  Shape out;
  std::vector<int64_t> strides;
  int64_t offset = 0;
};
// `inputs`: the node's input shapes (slice_like reads only the second one's shape).
StridedRead ResolveStridedRead(const Attrs& attrs, const std::vector<Shape>& inputs);

}  // namespace qv
