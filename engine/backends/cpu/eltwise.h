// Element-wise kernels on oneDNN's eltwise primitive: any layout in, the same layout out.
#pragma once

#include "backends/cpu/dnnl_kernel.h"

namespace qv::cpu {

// One input, one output, d = f(s; alpha, beta) in the input's own layout.
KernelBuild BuildEltwise(const KernelRequest& req, dnnl::algorithm algorithm, float alpha, float beta);

}  // namespace qv::cpu
