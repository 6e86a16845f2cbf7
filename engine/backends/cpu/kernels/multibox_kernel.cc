// _contrib_MultiBoxPrior (anchors from the attributes and the feature map's size, made when the plan
// is built) and _contrib_MultiBoxDetection (ops/multibox.h's MXNet algorithm, one image per task).
#include <algorithm>
#include <vector>

#include "backends/cpu/kernels/dnnl_kernel.h"
#include "ops/multibox.h"
#include "backends/cpu/runtime/compute_pool.h"

namespace qv::cpu {
namespace {

class AnchorsKernel : public Kernel {
 public:
  explicit AnchorsKernel(std::vector<float> anchors) : anchors_(std::move(anchors)) {}
  void Execute(const ExecArgs& args) const override {
    std::copy(anchors_.begin(), anchors_.end(), static_cast<float*>(args.outputs[0]));
  }

 private:
  std::vector<float> anchors_;
};

class DetectionKernel : public Kernel {
 public:
  DetectionKernel(const MultiBoxDetectionParams& p, int64_t batch, int64_t classes, int64_t anchors)
      : p_(p), batch_(batch), classes_(classes), anchors_(anchors) {}
  void Execute(const ExecArgs& args) const override {
    const float* cls_prob = static_cast<const float*>(args.inputs[0]);
    const float* loc_pred = static_cast<const float*>(args.inputs[1]);
    const float* anchor_boxes = static_cast<const float*>(args.inputs[2]);
    float* out = static_cast<float*>(args.outputs[0]);
    ParallelFor(args.threads, batch_, [&](int64_t n) {
      MultiBoxDetect(p_, classes_, anchors_, cls_prob + n * classes_ * anchors_, loc_pred + n * anchors_ * 4,
                     anchor_boxes, out + n * anchors_ * 6);
    });
  }

 private:
  MultiBoxDetectionParams p_;
  int64_t batch_, classes_, anchors_;
};

KernelBuild BuildPrior(const KernelRequest& req) {
  const Shape& data = req.inputs[0].type.shape;
  KernelBuild build;  // reads no input values
  AddOutput(build, PlainDesc(req.outputs[0].shape));
  build.kernel = std::make_unique<AnchorsKernel>(
      MultiBoxPriorAnchors(MultiBoxPriorParams::Parse(req.attrs), data[2], data[3]));
  return build;
}

KernelBuild BuildDetection(const KernelRequest& req) {
  const Shape& cls = req.inputs[0].type.shape;
  KernelBuild build = PlainIO(req);
  build.kernel = std::make_unique<DetectionKernel>(MultiBoxDetectionParams::Parse(req.attrs), cls[0], cls[1], cls[2]);
  return build;
}

const CpuKernelRegistrar kPrior({"_contrib_MultiBoxPrior"}, BuildPrior);
const CpuKernelRegistrar kDetection({"_contrib_MultiBoxDetection"}, BuildDetection);

}  // namespace
}  // namespace qv::cpu
