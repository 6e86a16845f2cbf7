#include "tensor/constant.h"

#include "common/error.h"

namespace qv {

Constant::Constant(NDArrayPtr plain) : type_{plain->shape(), plain->dtype()}, plain_(std::move(plain)) {}

Constant::Constant(TensorType type, LayoutPtr layout, std::shared_ptr<void> bytes)
    : type_(std::move(type)), layout_(std::move(layout)), bytes_(std::move(bytes)) {
  Check(layout_ != nullptr, Status::kInternal, "a packed constant needs its layout");
}

const NDArray& Constant::plain() const {
  Check(plain_ != nullptr, Status::kInternal,
        "a parameter " + ShapeToString(type_.shape) + " was read as row-major after a backend packed it");
  return *plain_;
}

}  // namespace qv
