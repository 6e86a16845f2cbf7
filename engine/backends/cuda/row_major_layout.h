// The CUDA backend's one layout: dense row-major float32 on the device, as MXNet and the C API hold
// arrays. Its kernels read and write nothing else, so the plan never inserts a conversion.
#pragma once

#include "tensor/layout.h"
#include "tensor/tensor_type.h"

namespace qv::cuda {

LayoutPtr RowMajorLayout(const TensorType& type);
// The bytes a tensor of `type` takes in it.
size_t RowMajorBytes(const TensorType& type);

}  // namespace qv::cuda
