// _contrib_box_decode as a loop over boxes: centre offsets scaled by the anchor's size, width and
// height offsets through exp, written as corner boxes.
#include <algorithm>
#include <cmath>

#include "backends/cpu/kernels/dnnl_kernel.h"
#include "ops/detection.h"
#include "backends/cpu/runtime/compute_pool.h"

namespace qv::cpu {
namespace {

class BoxDecodeKernel : public Kernel {
 public:
  BoxDecodeKernel(const BoxDecodeParams& p, int64_t batch, int64_t boxes) : p_(p), batch_(batch), boxes_(boxes) {}

  void Execute(const ExecArgs& args) const override {
    const float* x = static_cast<const float*>(args.inputs[0]);
    const float* anchors = static_cast<const float*>(args.inputs[1]);
    float* out = static_cast<float*>(args.outputs[0]);
    const int64_t n = batch_ * boxes_;
    ParallelFor(args.threads, n, [&](int64_t i) {
      const float* a = anchors + (i % boxes_) * 4;
      float ax = a[0], ay = a[1], aw = a[2], ah = a[3];
      if (p_.anchor_format == BoxFormat::kCorner) {
        aw -= ax;
        ah -= ay;
        ax += aw * 0.5f;
        ay += ah * 0.5f;
      }
      const float* d = x + i * 4;
      const float cx = d[0] * p_.std[0] * aw + ax, cy = d[1] * p_.std[1] * ah + ay;
      float dw = d[2] * p_.std[2], dh = d[3] * p_.std[3];
      if (p_.clip > 0) {
        dw = std::min(dw, p_.clip);
        dh = std::min(dh, p_.clip);
      }
      const float hw = std::exp(dw) * aw * 0.5f, hh = std::exp(dh) * ah * 0.5f;
      float* o = out + i * 4;
      o[0] = cx - hw;
      o[1] = cy - hh;
      o[2] = cx + hw;
      o[3] = cy + hh;
    });
  }

 private:
  BoxDecodeParams p_;
  int64_t batch_, boxes_;
};

KernelBuild BuildBoxDecode(const KernelRequest& req) {
  const Shape& x = req.inputs[0].type.shape;
  KernelBuild build;
  AddRuntimeInput(build, 0, PlainDesc(x));
  AddRuntimeInput(build, 1, PlainDesc(req.inputs[1].type.shape));
  AddOutput(build, PlainDesc(x));
  build.kernel = std::make_unique<BoxDecodeKernel>(BoxDecodeParams::Parse(req.attrs), x[0], x[1]);
  return build;
}

const CpuKernelRegistrar kRegister({"_contrib_box_decode"}, BuildBoxDecode);

}  // namespace
}  // namespace qv::cpu
