// A parameter as plans and kernels hold it: plain row-major values, or bytes a backend has packed into
// one of its own layouts (a convolution's blocked weights). The type says which: a packed constant
// has no plain values to hand out, so no kernel can read it as row-major by mistake.
#pragma once

#include <map>
#include <memory>

#include "tensor/layout.h"
#include "tensor/ndarray.h"
#include "tensor/tensor_type.h"

namespace qv {

class Constant {
 public:
  explicit Constant(NDArrayPtr plain);
  // `bytes` hold the tensor of `type` in `layout`.
  Constant(TensorType type, LayoutPtr layout, std::shared_ptr<void> bytes);

  const TensorType& type() const { return type_; }
  bool is_packed() const { return layout_ != nullptr; }
  // The row-major values; throws Error(Status::kInternal) for a packed constant.
  const NDArray& plain() const;
  // The packed layout, or null for a plain constant.
  const LayoutPtr& layout() const { return layout_; }
  // The bytes, in the plain layout or the packed one.
  const void* data() const { return plain_ ? plain_->data() : bytes_.get(); }

 private:
  TensorType type_;
  NDArrayPtr plain_;
  LayoutPtr layout_;
  std::shared_ptr<void> bytes_;
};

using ConstantPtr = std::shared_ptr<const Constant>;
// A bound graph's parameters by variable node id.
using ConstantMap = std::map<int, ConstantPtr>;

}  // namespace qv
