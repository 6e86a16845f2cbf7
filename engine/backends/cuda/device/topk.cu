// topk, one block per row: keys (value in an order-preserving encoding, index) sorted ascending by the
// block's bitonic sort (block_sort.cuh), then the first k written out.
#include "backends/cuda/device/block_sort.cuh"
#include "backends/cuda/device/device_kernels.h"

namespace qv::cuda::launch {
namespace {

constexpr int kBlock = 1024;

// Ascending keys put the row in the output's order: descending values (or ascending with is_ascend),
// equal values by ascending index; every NaN ranks above +inf, -0 equals +0.
__device__ uint64_t TopKKey(float v, int64_t index, bool ascend) {
  if (v != v) v = __int_as_float(0x7fc00000);
  if (v == 0.f) v = 0.f;
  const uint32_t bits = __float_as_uint(v);
  uint32_t order = (bits & 0x80000000u) != 0 ? ~bits : bits | 0x80000000u;  // ascending with the value
  if (!ascend) order = ~order;
  return (static_cast<uint64_t>(order) << 32) | static_cast<uint32_t>(index);
}

__global__ void __launch_bounds__(kBlock) TopKKernel(TopKGeometry g, int64_t sort_length, const float* x,
                                                      float* first, float* second, uint64_t* workspace) {
  const int64_t t = threadIdx.x, threads = blockDim.x, r = blockIdx.x;
  const int64_t o = r / g.inner, i = r % g.inner;
  const float* row = x + o * g.n * g.inner + i;
  uint64_t* keys = workspace + r * sort_length;
  for (int64_t j = t; j < sort_length; j += threads)
    keys[j] = j < g.n ? TopKKey(row[j * g.inner], j, g.ascend) : kInvalidKey;
  if (g.ret == TopKGeometry::kMask)
    for (int64_t j = t; j < g.n; j += threads) first[(o * g.n + j) * g.inner + i] = 0.f;
  __syncthreads();
  BitonicSort(keys, sort_length);
  __syncthreads();  // a row of one element sorts without a barrier
  for (int64_t j = t; j < g.k; j += threads) {
    const int64_t index = static_cast<int64_t>(keys[j] & 0xffffffffu);
    const int64_t at = (o * g.k + j) * g.inner + i;
    switch (g.ret) {
      case TopKGeometry::kValue: first[at] = row[index * g.inner]; break;
      case TopKGeometry::kIndices: first[at] = static_cast<float>(index); break;
      case TopKGeometry::kMask: first[(o * g.n + index) * g.inner + i] = 1.f; break;
      case TopKGeometry::kBoth:
        first[at] = row[index * g.inner];
        second[at] = static_cast<float>(index);
        break;
    }
  }
}

}  // namespace

size_t TopKWorkspace(const TopKGeometry& g) {
  return static_cast<size_t>(g.rows) * static_cast<size_t>(SortLength(g.n)) * sizeof(uint64_t);
}

void TopK(const TopKGeometry& g, const float* x, float* first, float* second, void* workspace, cudaStream_t stream) {
  TopKKernel<<<static_cast<unsigned>(g.rows), kBlock, 0, stream>>>(g, SortLength(g.n), x, first, second,
                                                                   static_cast<uint64_t*>(workspace));
}

}  // namespace qv::cuda::launch
