// Nearest UpSampling: each output element of one input's channel range reads the input pixel it covers.
#include "backends/cuda/device/device_kernels.h"
#include "backends/cuda/device/launch_grid.cuh"

namespace qv::cuda::launch {
namespace {

__global__ void UpsampleNearestKernel(const float* x, float* y, int64_t total, int64_t channels, int64_t h, int64_t w,
                                      int64_t out_channels, int64_t first_channel, int64_t scale, bool add) {
  const int64_t oh = h * scale, ow = w * scale;
  for (int64_t i = FirstIndex(); i < total; i += GridStride()) {
    const int64_t col = i % ow, row = i / ow % oh, c = i / (ow * oh) % channels, b = i / (ow * oh * channels);
    const float v = x[((b * channels + c) * h + row / scale) * w + col / scale];
    float& out = y[((b * out_channels + first_channel + c) * oh + row) * ow + col];
    out = add ? out + v : v;
  }
}

}  // namespace

void UpsampleNearest(const float* x, float* y, int64_t n, int64_t channels, int64_t h, int64_t w,
                     int64_t out_channels, int64_t first_channel, int64_t scale, bool add, cudaStream_t stream) {
  const int64_t total = n * channels * h * scale * w * scale;
  UpsampleNearestKernel<<<BlocksFor(total), kThreads, 0, stream>>>(x, y, total, channels, h, w, out_channels,
                                                                   first_channel, scale, add);
}

}  // namespace qv::cuda::launch
