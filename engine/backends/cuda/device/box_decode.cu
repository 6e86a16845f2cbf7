// _contrib_box_decode, a thread per box, in the CPU kernel's order of operations with every product
// and sum rounded on its own (no fused multiply-add), so only expf can differ from the host's exp.
#include "backends/cuda/device/device_kernels.h"
#include "backends/cuda/device/launch_grid.cuh"

namespace qv::cuda::launch {
namespace {

__global__ void BoxDecodeKernel(BoxDecodeGeometry g, const float* x, const float* anchors, float* y, int64_t n) {
  for (int64_t i = FirstIndex(); i < n; i += GridStride()) {
    const float* a = anchors + (i % g.boxes) * 4;
    float ax = a[0], ay = a[1], aw = a[2], ah = a[3];
    if (g.corner_anchors) {
      aw = __fsub_rn(aw, ax);
      ah = __fsub_rn(ah, ay);
      ax = __fadd_rn(ax, __fmul_rn(aw, 0.5f));
      ay = __fadd_rn(ay, __fmul_rn(ah, 0.5f));
    }
    const float* d = x + i * 4;
    const float cx = __fadd_rn(__fmul_rn(__fmul_rn(d[0], g.std[0]), aw), ax);
    const float cy = __fadd_rn(__fmul_rn(__fmul_rn(d[1], g.std[1]), ah), ay);
    float dw = __fmul_rn(d[2], g.std[2]), dh = __fmul_rn(d[3], g.std[3]);
    if (g.clip > 0) {
      dw = g.clip < dw ? g.clip : dw;  // std::min's choice, NaN included
      dh = g.clip < dh ? g.clip : dh;
    }
    const float hw = __fmul_rn(__fmul_rn(expf(dw), aw), 0.5f), hh = __fmul_rn(__fmul_rn(expf(dh), ah), 0.5f);
    float* o = y + i * 4;
    o[0] = __fsub_rn(cx, hw);
    o[1] = __fsub_rn(cy, hh);
    o[2] = __fadd_rn(cx, hw);
    o[3] = __fadd_rn(cy, hh);
  }
}

}  // namespace

void BoxDecode(const BoxDecodeGeometry& g, const float* x, const float* anchors, float* y, cudaStream_t stream) {
  const int64_t n = g.batch * g.boxes;
  BoxDecodeKernel<<<BlocksFor(n), kThreads, 0, stream>>>(g, x, anchors, y, n);
}

}  // namespace qv::cuda::launch
