// One float32 input, one output of the same shape, y = f(x) by the element-wise kernel
// (device_kernels.h): the activations, exp, clip, LeakyReLU's one-slope forms and scalar arithmetic.
#pragma once

#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/device/device_kernels.h"

namespace qv::cuda {

KernelBuild BuildUnary(const KernelRequest& request, launch::UnaryFn fn, float a = 0.f, float b = 0.f);

}  // namespace qv::cuda
