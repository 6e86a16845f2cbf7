// gather_nd: output element i is element i % slice of the slice that index position i / slice selects.
#include "backends/cuda/device/device_kernels.h"
#include "backends/cuda/device/launch_grid.cuh"
#include "ops/gather_nd_math.h"

namespace qv::cuda::launch {
namespace {

__global__ void GatherNDKernel(GatherNDGeometry g, const float* data, const float* indices, float* y, int64_t n) {
  for (int64_t i = FirstIndex(); i < n; i += GridStride()) {
    const int64_t position = i / g.slice;
    int64_t at = 0;
    bool inside = true;
    for (int j = 0; j < g.m; ++j) {
      const int64_t c = GatherNDCoordinate(indices[j * g.positions + position], g.dims[j]);
      inside = inside && c >= 0;
      at += c * g.strides[j];
    }
    y[i] = inside ? data[at + i % g.slice] : __int_as_float(0x7fc00000);
  }
}

}  // namespace

void GatherND(const GatherNDGeometry& g, const float* data, const float* indices, float* y, cudaStream_t stream) {
  const int64_t n = g.positions * g.slice;
  GatherNDKernel<<<BlocksFor(n), kThreads, 0, stream>>>(g, data, indices, y, n);
}

}  // namespace qv::cuda::launch
