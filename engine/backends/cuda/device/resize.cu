// _contrib_AdaptiveAvgPooling2D and _contrib_BilinearResize2D, one thread per output element, with the
// CPU kernels' arithmetic (MXNet's): every product and sum rounded on its own (no fused multiply-adds),
// an adaptive cell summed row by row and divided by its width and then its height, a bilinear sample
// computed as h0 (w0 a + w1 b) + h1 (w0 c + w1 d) from the coordinates ops/bilinear_resize.cc defines.
#include "backends/cuda/device/device_kernels.h"
#include "backends/cuda/device/launch_grid.cuh"

namespace qv::cuda::launch {
namespace {

__global__ void AdaptiveAvgPoolKernel(AdaptivePoolGeometry g, const float* x, float* y, int64_t n) {
  for (int64_t idx = FirstIndex(); idx < n; idx += GridStride()) {
    const int64_t j = idx % g.ow, i = (idx / g.ow) % g.oh, plane = idx / (g.ow * g.oh);
    const int64_t h0 = i * g.h / g.oh, h1 = ((i + 1) * g.h + g.oh - 1) / g.oh;
    const int64_t w0 = j * g.w / g.ow, w1 = ((j + 1) * g.w + g.ow - 1) / g.ow;
    const float* src = x + plane * g.h * g.w;
    float sum = 0.f;
    for (int64_t r = h0; r < h1; ++r)
      for (int64_t c = w0; c < w1; ++c) sum = __fadd_rn(sum, src[r * g.w + c]);
    y[idx] = __fdiv_rn(__fdiv_rn(sum, static_cast<float>(w1 - w0)), static_cast<float>(h1 - h0));
  }
}

struct Tap {
  int64_t index, step;
  float lambda;
};

// ops/bilinear_resize.cc's BilinearSource, given its scale.
__device__ Tap Source(int64_t i, int64_t in, float scale, bool align_corners) {
  float src;
  if (align_corners) {
    src = __fmul_rn(scale, static_cast<float>(i));
  } else {
    src = __double2float_rn(__dsub_rn(__dmul_rn(static_cast<double>(scale), static_cast<double>(i) + 0.5), 0.5));
    if (src < 0) src = 0;
  }
  Tap t;
  t.index = static_cast<int64_t>(src);
  t.step = t.index < in - 1 ? 1 : 0;
  t.lambda = __fsub_rn(src, static_cast<float>(t.index));
  return t;
}

__device__ float Lerp(float l0, float a, float l1, float b) { return __fadd_rn(__fmul_rn(l0, a), __fmul_rn(l1, b)); }

__global__ void BilinearResizeKernel(BilinearResizeGeometry g, const float* x, float* y, int64_t n) {
  for (int64_t idx = FirstIndex(); idx < n; idx += GridStride()) {
    const int64_t j = idx % g.ow, i = (idx / g.ow) % g.oh, plane = idx / (g.ow * g.oh);
    const Tap r = Source(i, g.h, g.scale_h, g.align_corners), c = Source(j, g.w, g.scale_w, g.align_corners);
    const float h1 = r.lambda, h0 = __fsub_rn(1.f, h1), w1 = c.lambda, w0 = __fsub_rn(1.f, w1);
    const float* top = x + (plane * g.h + r.index) * g.w;
    const float* bottom = top + r.step * g.w;
    const int64_t a = c.index, b = c.index + c.step;
    y[idx] = Lerp(h0, Lerp(w0, top[a], w1, top[b]), h1, Lerp(w0, bottom[a], w1, bottom[b]));
  }
}

__global__ void CopyKernel(const float* x, float* y, int64_t n) {
  for (int64_t idx = FirstIndex(); idx < n; idx += GridStride()) y[idx] = x[idx];
}

}  // namespace

void AdaptiveAvgPool(const AdaptivePoolGeometry& g, const float* x, float* y, cudaStream_t stream) {
  const int64_t n = g.planes * g.oh * g.ow;
  AdaptiveAvgPoolKernel<<<BlocksFor(n), kThreads, 0, stream>>>(g, x, y, n);
}

void BilinearResize(const BilinearResizeGeometry& g, const float* x, float* y, cudaStream_t stream) {
  const int64_t n = g.planes * g.oh * g.ow;
  if (g.h == g.oh && g.w == g.ow) {  // a copy, as on the CPU
    CopyKernel<<<BlocksFor(n), kThreads, 0, stream>>>(x, y, n);
    return;
  }
  BilinearResizeKernel<<<BlocksFor(n), kThreads, 0, stream>>>(g, x, y, n);
}

}  // namespace qv::cuda::launch
