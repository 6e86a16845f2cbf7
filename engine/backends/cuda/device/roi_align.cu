// _contrib_ROIAlign: one thread per output cell (roi, c, i, j), with the CPU kernel's arithmetic from
// ops/roi_align_math.h.
#include <cmath>

#include "backends/cuda/device/device_kernels.h"
#include "backends/cuda/device/launch_grid.cuh"

namespace qv::cuda::launch {
namespace {

__global__ void RoiAlignKernel(RoiAlignGeometry g, const float* data, const float* rois, float* y, int64_t n) {
  for (int64_t idx = FirstIndex(); idx < n; idx += GridStride()) {
    const int64_t j = idx % g.pooled_w, i = (idx / g.pooled_w) % g.pooled_h;
    const int64_t c = (idx / (g.pooled_w * g.pooled_h)) % g.channels, r = idx / (g.pooled_w * g.pooled_h * g.channels);
    const float* roi = rois + r * 5;
    if (RoiFaultOf(g, roi) != RoiFault::kNone) {
      y[idx] = NAN;
      continue;
    }
    const RoiBins b = ResolveRoiBins(g, roi);
    if (b.image < 0) {
      y[idx] = 0.f;
      continue;
    }
    const float* plane = RoiAlignPlane(g, data, b.image, c, i, j);
    float sum = 0.f;
    for (int64_t iy = 0; iy < b.grid_h; ++iy)
      for (int64_t ix = 0; ix < b.grid_w; ++ix)
        sum += RoiAlignRead(RoiAlignTapAt(g.height, g.width, RoiAlignSampleY(b, i, iy), RoiAlignSampleX(b, j, ix)), plane);
    y[idx] = sum / static_cast<float>(b.grid_h * b.grid_w);
  }
}

}  // namespace

void RoiAlign(const RoiAlignGeometry& g, const float* data, const float* rois, float* y, cudaStream_t stream) {
  const int64_t n = g.rois * g.channels * g.pooled_h * g.pooled_w;
  if (n == 0) return;
  RoiAlignKernel<<<BlocksFor(n), kThreads, 0, stream>>>(g, data, rois, y, n);
}

}  // namespace qv::cuda::launch
