// The launch shape the element-parallel kernels share: 256 threads a block and a grid-stride loop,
// so one launch covers any element count with a bounded grid.
#pragma once

#include <cstdint>

namespace qv::cuda::launch {

constexpr int kThreads = 256;

inline unsigned BlocksFor(int64_t n) {
  constexpr int64_t kMaxBlocks = int64_t{65535} * 16;
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < kMaxBlocks ? (blocks > 0 ? blocks : 1) : kMaxBlocks);
}

__device__ inline int64_t FirstIndex() { return blockIdx.x * int64_t{blockDim.x} + threadIdx.x; }
__device__ inline int64_t GridStride() { return int64_t{gridDim.x} * blockDim.x; }

}  // namespace qv::cuda::launch
