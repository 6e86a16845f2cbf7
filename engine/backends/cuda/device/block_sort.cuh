// Block-wide building blocks of the detection kernels that work on one image per block (box_nms.cu,
// multibox_detection.cu): order-preserving compaction, a bitonic sort of 64-bit keys that encode the
// CPU's order (descending score, ties by row), and std::min/std::max with their NaN behaviour.
#pragma once

#include <cstdint>

namespace qv::cuda::launch {

constexpr uint64_t kInvalidKey = ~uint64_t{0};  // sorts after every valid key

// std::min and std::max: which operand they return decides what a NaN gives.
__device__ inline float Min(float a, float b) { return b < a ? b : a; }
__device__ inline float Max(float a, float b) { return a < b ? b : a; }

// Ascending keys order rows by descending score, equal scores by ascending row: the CPU's stable sort.
__device__ inline uint64_t DescendingScoreKey(float score, int64_t row) {
  if (score == 0.f) score = 0.f;  // -0 and +0 compare equal on the CPU: one key for both
  const uint32_t bits = __float_as_uint(score);
  const uint32_t ascending = (bits & 0x80000000u) != 0 ? ~bits : bits | 0x80000000u;
  return (static_cast<uint64_t>(~ascending) << 32) | static_cast<uint32_t>(row);
}

// How many threads before this one in the block have `flag` set; `*total` gets the block's count.
// Every thread of the block must call it, with `warp_counts` a shared array of blockDim.x / 32 ints.
__device__ inline int CountBefore(bool flag, int* warp_counts, int* total) {
  const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
  const unsigned mask = __ballot_sync(0xffffffffu, flag);
  if (lane == 0) warp_counts[warp] = __popc(mask);
  __syncthreads();
  int before = __popc(mask & ((1u << lane) - 1u)), sum = 0;
  for (int w = 0; w < static_cast<int>(blockDim.x) / 32; ++w) {
    if (w < warp) before += warp_counts[w];
    sum += warp_counts[w];
  }
  __syncthreads();  // warp_counts is reused by the next call
  *total = sum;
  return before;
}

// Sorts keys[0, length) ascending; length a power of two. Every thread of the block must call it; a
// barrier makes each pass's writes visible to the next.
__device__ inline void BitonicSort(uint64_t* keys, int64_t length) {
  const int64_t t = threadIdx.x, threads = blockDim.x;
  for (int64_t size = 2; size <= length; size *= 2)
    for (int64_t stride = size / 2; stride > 0; stride /= 2) {
      for (int64_t i = t; i < length; i += threads) {
        const int64_t partner = i ^ stride;
        if (partner <= i) continue;
        const uint64_t a = keys[i], b = keys[partner];
        if ((a > b) == ((i & size) == 0)) {
          keys[i] = b;
          keys[partner] = a;
        }
      }
      __syncthreads();
    }
}

// The smallest power of two at least n (at least 1).
inline int64_t SortLength(int64_t n) {
  int64_t length = 1;
  while (length < n) length *= 2;
  return length;
}

inline size_t Aligned(size_t bytes) { return (bytes + 255) / 256 * 256; }

}  // namespace qv::cuda::launch
