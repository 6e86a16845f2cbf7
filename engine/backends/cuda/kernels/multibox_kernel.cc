// _contrib_MultiBoxPrior (anchors made on the host from the attributes and the feature map's size,
// uploaded once per node and shape) and _contrib_MultiBoxDetection (multibox_detection.cu, its scratch
// in the stream's workspace, reserved when the plan is built).
#include <string>

#include "backends/cuda/runtime/cuda_error.h"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/runtime/device_constants.h"
#include "backends/cuda/kernels/device_copy_kernel.h"
#include "backends/cuda/device/device_kernels.h"
#include "backends/cuda/runtime/device_resources.h"
#include "backends/cuda/row_major_layout.h"
#include "common/error.h"
#include "ops/multibox.h"

namespace qv::cuda {
namespace {

class DetectionKernel : public CudaKernel {
 public:
  DetectionKernel(const launch::MultiBoxGeometry& g, size_t workspace) : g_(g), workspace_(workspace) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    Check(on.workspace_bytes >= workspace_, Status::kInternal,
          "MultiBoxDetection needs a " + std::to_string(workspace_) + "-byte workspace, the stream has " +
              std::to_string(on.workspace_bytes));
    launch::MultiBoxDetection(g_, static_cast<const float*>(args.inputs[0]), static_cast<const float*>(args.inputs[1]),
                              static_cast<const float*>(args.inputs[2]), static_cast<float*>(args.outputs[0]),
                              on.workspace, on.stream);
    CheckLaunch("the MultiBoxDetection kernel");
  }

 private:
  launch::MultiBoxGeometry g_;
  size_t workspace_;
};

KernelBuild BuildPrior(const KernelRequest& req, DeviceConstantStore& constants) {
  const Shape& data = req.inputs[0].type.shape;
  const MultiBoxPriorParams p = MultiBoxPriorParams::Parse(req.attrs);
  // Keyed by shape too: plans for other input sizes need other anchors.
  auto anchors = constants.GetDerived(req.attrs.node() + "/anchors" + ShapeToString(data), req.device,
                                      [&] { return MultiBoxPriorAnchors(p, data[2], data[3]); });
  return RowMajorBuild(req, {}, MakeConstantCopy(std::move(anchors), RowMajorBytes(req.outputs[0])));
}

KernelBuild BuildDetection(const KernelRequest& req, DeviceConstantStore&) {
  const Shape& cls = req.inputs[0].type.shape;
  const MultiBoxDetectionParams p = MultiBoxDetectionParams::Parse(req.attrs);
  Check(cls[2] <= int64_t{0xffffffff} && cls[0] <= int64_t{0x7fffffff}, Status::kUnsupported,
        req.attrs.Where() + ShapeToString(cls) + " has more anchors or images than " + req.device.ToString() +
            " handles (2^32 anchors, 2^31 images)");
  launch::MultiBoxGeometry g;
  g.batch = cls[0], g.classes = cls[1], g.anchors = cls[2];
  g.topk = p.nms_topk > 0 && p.nms_topk < g.anchors ? p.nms_topk : g.anchors;
  g.threshold = p.threshold, g.nms_threshold = p.nms_threshold;
  for (int k = 0; k < 4; ++k) g.variances[k] = p.variances[k];
  g.clip = p.clip, g.force_suppress = p.force_suppress;
  const size_t workspace = launch::MultiBoxWorkspace(g);
  ResourcesOf(req.device.id).streams.ReserveWorkspace(workspace);
  return RowMajorBuild(req, {0, 1, 2}, std::make_unique<DetectionKernel>(g, workspace));
}

const CudaKernelRegistrar kPrior({"_contrib_MultiBoxPrior"}, BuildPrior);
const CudaKernelRegistrar kDetection({"_contrib_MultiBoxDetection"}, BuildDetection);

}  // namespace
}  // namespace qv::cuda
