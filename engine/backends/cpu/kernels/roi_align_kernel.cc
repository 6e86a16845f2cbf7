// _contrib_ROIAlign as MXNet 1.9.1's CPU kernel computes it: per ROI, the bilinear taps of every sample
// of every cell worked out once, then each channel's cells summed from them in sample order.
#include <algorithm>
#include <string>
#include <vector>

#include "backends/cpu/kernels/dnnl_kernel.h"
#include "ops/roi_align.h"
#include "backends/cpu/runtime/compute_pool.h"

namespace qv::cpu {
namespace {

class RoiAlignKernel : public Kernel {
 public:
  RoiAlignKernel(const RoiAlignGeometry& g, std::string where) : g_(g), where_(std::move(where)) {}

  void Execute(const ExecArgs& args) const override {
    const float* data = static_cast<const float*>(args.inputs[0]);
    const float* rois = static_cast<const float*>(args.inputs[1]);
    float* out = static_cast<float*>(args.outputs[0]);
    for (int64_t r = 0; r < g_.rois; ++r) CheckRoi(g_, rois + r * 5, r, where_);
    const int64_t cells = g_.pooled_h * g_.pooled_w;
    ParallelFor(args.threads, g_.rois, [&](int64_t r) {
      const RoiBins b = ResolveRoiBins(g_, rois + r * 5);
      float* roi_out = out + r * g_.channels * cells;
      if (b.image < 0) {
        std::fill(roi_out, roi_out + g_.channels * cells, 0.f);
        return;
      }
      const int64_t samples = b.grid_h * b.grid_w;
      std::vector<RoiAlignTap> taps(static_cast<size_t>(cells * samples));
      for (int64_t i = 0, t = 0; i < g_.pooled_h; ++i)
        for (int64_t j = 0; j < g_.pooled_w; ++j)
          for (int64_t iy = 0; iy < b.grid_h; ++iy)
            for (int64_t ix = 0; ix < b.grid_w; ++ix)
              taps[t++] = RoiAlignTapAt(g_.height, g_.width, RoiAlignSampleY(b, i, iy), RoiAlignSampleX(b, j, ix));
      const float count = static_cast<float>(samples);
      for (int64_t c = 0; c < g_.channels; ++c)
        for (int64_t i = 0; i < g_.pooled_h; ++i)
          for (int64_t j = 0; j < g_.pooled_w; ++j) {
            const float* plane = RoiAlignPlane(g_, data, b.image, c, i, j);
            const RoiAlignTap* cell = taps.data() + (i * g_.pooled_w + j) * samples;
            float sum = 0.f;
            for (int64_t s = 0; s < samples; ++s) sum += RoiAlignRead(cell[s], plane);
            roi_out[(c * g_.pooled_h + i) * g_.pooled_w + j] = sum / count;
          }
    });
  }

 private:
  RoiAlignGeometry g_;
  std::string where_;
};

KernelBuild BuildRoiAlign(const KernelRequest& req) {
  const Shape& data = req.inputs[0].type.shape;
  const Shape& rois = req.inputs[1].type.shape;
  KernelBuild build = PlainIO(req);
  build.kernel = std::make_unique<RoiAlignKernel>(ResolveRoiAlign(req.attrs, data, rois), req.attrs.Where());
  return build;
}

const CpuKernelRegistrar kRegister({"_contrib_ROIAlign"}, BuildRoiAlign);

}  // namespace
}  // namespace qv::cpu
