// Batched matrix products over strided views of the kernel's buffers, as one oneDNN matmul: batch_dot
// (operands stored transposed or not) and the interleaved attention products (queries, keys and values
// read in place from the interleaved projections).
#pragma once

#include <memory>

#include "backends/cpu/kernels/dnnl_kernel.h"

namespace qv::cpu {

// A (batch, rows, cols) view of runtime input or output `index`, element (b, r, c) at
// offset + b * strides[0] + r * strides[1] + c * strides[2] floats.
struct MatrixView {
  int index = 0;
  dnnl::memory::dims dims, strides;
  int64_t offset = 0;
};

// dst = scale * a x b for each batch (a: batch x m x k, b: batch x k x n, dst: batch x m x n, all
// runtime inputs except dst, output `dst.index`); nullptr when oneDNN has no implementation for
// these strides (the caller then runs its plain loop).
std::unique_ptr<Kernel> MakeStridedMatmul(const MatrixView& a, const MatrixView& b, const MatrixView& dst,
                                          float scale = 1.f);

}  // namespace qv::cpu
