// Deconvolution (transposed convolution) attributes and output geometry, shared by shape inference and
// the kernels. MXNet's semantics: the weight is (in_channels, num_filter / num_group, kh, kw); each
// input pixel scatters its kernel into the output at stride steps, the result is cropped by `pad` on
// both sides and extended by `adj` at the bottom and right. A non-zero `target_shape` replaces pad and
// adj by the ones that give that output size (MXNet's InferPad).
#pragma once

#include <vector>

#include "ops/op.h"
#include "ops/post_ops.h"

namespace qv {

struct DeconvolutionParams {
  std::vector<int64_t> kernel, stride, dilate, pad, adj, target_shape;
  int64_t num_filter = 0;
  int64_t num_group = 1;
  bool no_bias = false;
  // Element-wise operations fused by graph passes, in execution order.
  std::vector<PostOp> post_ops;

  static DeconvolutionParams Parse(const Attrs& attrs);

  // Spatial axes: 1 or 2.
  size_t ndim() const { return kernel.size(); }

  // The crop and extension actually applied for an input of `data` (NCW or NCHW), and the output shape.
  struct Geometry {
    std::vector<int64_t> pad, adj;
    Shape output;
  };
  // Throws Error(Status::kShape) naming the node when the sizes do not work out.
  Geometry Resolve(const Attrs& attrs, const Shape& data) const;
};

}  // namespace qv
