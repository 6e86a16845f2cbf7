// ROIPooling, one thread per output bin: ops/rcnn_math.h's window and bin (the CPU's definitions), the
// maximum of the bin's cells from -FLT_MAX, 0 for an empty bin or an ROI of no image.
#include <cfloat>

#include "backends/cuda/device/device_kernels.h"
#include "backends/cuda/device/launch_grid.cuh"
#include "ops/rcnn_math.h"

namespace qv::cuda::launch {
namespace {

__global__ void RoiPoolingKernel(RoiPoolingGeometry g, const float* data, const float* rois, float* y, int64_t n) {
  for (int64_t i = FirstIndex(); i < n; i += GridStride()) {
    const int64_t pw = i % g.pooled_w, ph = (i / g.pooled_w) % g.pooled_h;
    const int64_t c = (i / (g.pooled_w * g.pooled_h)) % g.channels, r = i / (g.pooled_w * g.pooled_h * g.channels);
    const RoiPoolingWindow window = RoiPoolingWindowOf(rois + r * 5, g.spatial_scale, g.pooled_h, g.pooled_w, g.batch);
    int64_t h0, h1, w0, w1;
    RoiPoolingBin(window, ph, pw, g.height, g.width, &h0, &h1, &w0, &w1);
    if (window.image < 0 || h1 <= h0 || w1 <= w0) {
      y[i] = 0.f;
      continue;
    }
    const float* map = data + (window.image * g.channels + c) * g.height * g.width;
    float best = -FLT_MAX;
    for (int64_t h = h0; h < h1; ++h)
      for (int64_t w = w0; w < w1; ++w)
        if (map[h * g.width + w] > best) best = map[h * g.width + w];
    y[i] = best;
  }
}

}  // namespace

void RoiPooling(const RoiPoolingGeometry& g, const float* data, const float* rois, float* y, cudaStream_t stream) {
  const int64_t n = g.rois * g.channels * g.pooled_h * g.pooled_w;
  RoiPoolingKernel<<<BlocksFor(n), kThreads, 0, stream>>>(g, data, rois, y, n);
}

}  // namespace qv::cuda::launch
