// _contrib_AdaptiveAvgPooling2D as a plain loop over NCHW planes, one plane per task. oneDNN's average
// pooling fits only grids of uniform cells and divides once by the cell size, where MXNet sums each
// cell row by row in float and divides by its width and then its height; this loop keeps that
// arithmetic (and the overlapping cells) for every grid, and its cost is small beside the
// convolutions around it (PSPNet pools 2048 channels of a 1/8-size map to 1, 2, 3 and 6).
#include <vector>

#include "backends/cpu/kernels/dnnl_kernel.h"
#include "ops/adaptive_avg_pooling.h"
#include "backends/cpu/runtime/compute_pool.h"

namespace qv::cpu {
namespace {

class AdaptiveAvgPoolKernel : public Kernel {
 public:
  explicit AdaptiveAvgPoolKernel(const AdaptivePoolGeometry& g) : g_(g) {}

  void Execute(const ExecArgs& args) const override {
    const float* x = static_cast<const float*>(args.inputs[0]);
    float* y = static_cast<float*>(args.outputs[0]);
    ParallelFor(args.threads, g_.planes, [&](int64_t p) {
      const float* plane = x + p * g_.h * g_.w;
      float* out = y + p * g_.oh * g_.ow;
      for (int64_t i = 0; i < g_.oh; ++i) {
        const int64_t h0 = AdaptiveCellBegin(i, g_.h, g_.oh), h1 = AdaptiveCellEnd(i, g_.h, g_.oh);
        for (int64_t j = 0; j < g_.ow; ++j) {
          const int64_t w0 = AdaptiveCellBegin(j, g_.w, g_.ow), w1 = AdaptiveCellEnd(j, g_.w, g_.ow);
          float sum = 0.f;
          for (int64_t r = h0; r < h1; ++r)
            for (int64_t c = w0; c < w1; ++c) sum += plane[r * g_.w + c];
          out[i * g_.ow + j] = sum / static_cast<float>(w1 - w0) / static_cast<float>(h1 - h0);
        }
      }
    });
  }

 private:
  AdaptivePoolGeometry g_;
};

KernelBuild BuildAdaptiveAvgPool(const KernelRequest& req) {
  const Shape& x = req.inputs[0].type.shape;
  KernelBuild build = PlainIO(req);
  build.kernel = std::make_unique<AdaptiveAvgPoolKernel>(ResolveAdaptiveAvgPool(req.attrs, x));
  return build;
}

const CpuKernelRegistrar kRegister({"_contrib_AdaptiveAvgPooling2D"}, BuildAdaptiveAvgPool);

}  // namespace
}  // namespace qv::cpu
