// _contrib_BilinearResize2D as a plain loop over output rows of NCHW planes. oneDNN's linear
// resampling places samples at half-pixel centres only (MXNet's align_corners=false; GluonCV's
// segmentation heads use the default, true) and orders its arithmetic its own way; this loop computes
// each output as MXNet does, h0 (w0 a + w1 b) + h1 (w0 c + w1 d) in float, from per-row and
// per-column taps worked out once when the kernel is built.
#include <cstring>
#include <vector>

#include "backends/cpu/kernels/dnnl_kernel.h"
#include "ops/bilinear_resize.h"
#include "backends/cpu/runtime/compute_pool.h"

namespace qv::cpu {
namespace {

class BilinearResizeKernel : public Kernel {
 public:
  explicit BilinearResizeKernel(const BilinearResizeGeometry& g) : g_(g) {
    for (int64_t i = 0; i < g.oh; ++i) rows_.push_back(BilinearSource(i, g.h, g.oh, g.align_corners));
    for (int64_t j = 0; j < g.ow; ++j) cols_.push_back(BilinearSource(j, g.w, g.ow, g.align_corners));
  }

  void Execute(const ExecArgs& args) const override {
    const float* x = static_cast<const float*>(args.inputs[0]);
    float* y = static_cast<float*>(args.outputs[0]);
    if (g_.h == g_.oh && g_.w == g_.ow) {  // MXNet copies (either convention reads the same pixels)
      std::memcpy(y, x, sizeof(float) * g_.planes * g_.h * g_.w);
      return;
    }
    ParallelFor(args.threads, g_.planes * g_.oh, [&](int64_t row) {
      const int64_t p = row / g_.oh;
      const BilinearTap& r = rows_[row % g_.oh];
      const float h1 = r.lambda, h0 = 1.f - h1;
      const float* top = x + (p * g_.h + r.index) * g_.w;
      const float* bottom = top + r.step * g_.w;
      float* out = y + row * g_.ow;
      for (int64_t j = 0; j < g_.ow; ++j) {
        const BilinearTap& c = cols_[j];
        const float w1 = c.lambda, w0 = 1.f - w1;
        const int64_t a = c.index, b = c.index + c.step;
        out[j] = h0 * (w0 * top[a] + w1 * top[b]) + h1 * (w0 * bottom[a] + w1 * bottom[b]);
      }
    });
  }

 private:
  BilinearResizeGeometry g_;
  std::vector<BilinearTap> rows_, cols_;
};

KernelBuild BuildBilinearResize(const KernelRequest& req) {
  std::vector<Shape> shapes;
  for (const auto& in : req.inputs) shapes.push_back(in.type.shape);
  KernelBuild build;
  AddRuntimeInput(build, 0, PlainDesc(shapes[0]));  // mode 'like' reads only the shape of its second input
  AddOutput(build, PlainDesc(req.outputs[0].shape));
  build.kernel = std::make_unique<BilinearResizeKernel>(ResolveBilinearResize(req.attrs, shapes));
  return build;
}

const CpuKernelRegistrar kRegister({"_contrib_BilinearResize2D"}, BuildBilinearResize);

}  // namespace
}  // namespace qv::cpu
