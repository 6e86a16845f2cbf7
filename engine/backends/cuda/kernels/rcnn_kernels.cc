// _contrib_Proposal and _contrib_MultiProposal (proposal.cu: the base anchors made on the host and
// uploaded once per node, the scratch in the stream's workspace, reserved when the plan is built) and
// ROIPooling (roi_pooling.cu).
#include <string>

#include "backends/cuda/runtime/cuda_error.h"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/runtime/device_constants.h"
#include "backends/cuda/device/device_kernels.h"
#include "backends/cuda/runtime/device_resources.h"
#include "common/error.h"
#include "ops/proposal.h"
#include "ops/roi_pooling.h"

namespace qv::cuda {
namespace {

class ProposalKernel : public CudaKernel {
 public:
  ProposalKernel(const launch::ProposalGeometry& g, std::shared_ptr<const void> anchors, size_t workspace)
      : g_(g), anchors_(std::move(anchors)), workspace_(workspace) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    Check(on.workspace_bytes >= workspace_, Status::kInternal,
          "Proposal needs a " + std::to_string(workspace_) + "-byte workspace, the stream has " +
              std::to_string(on.workspace_bytes));
    launch::Proposal(g_, static_cast<const float*>(anchors_.get()), static_cast<const float*>(args.inputs[0]),
                     static_cast<const float*>(args.inputs[1]), static_cast<const float*>(args.inputs[2]),
                     static_cast<float*>(args.outputs[0]),
                     args.outputs.size() > 1 ? static_cast<float*>(args.outputs[1]) : nullptr, on.workspace, on.stream);
    CheckLaunch("the Proposal kernels");
  }

 private:
  launch::ProposalGeometry g_;
  std::shared_ptr<const void> anchors_;
  size_t workspace_;
};

class RoiPoolingKernel : public CudaKernel {
 public:
  explicit RoiPoolingKernel(const launch::RoiPoolingGeometry& g) : g_(g) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    launch::RoiPooling(g_, static_cast<const float*>(args.inputs[0]), static_cast<const float*>(args.inputs[1]),
                       static_cast<float*>(args.outputs[0]), on.stream);
    CheckLaunch("the ROIPooling kernel");
  }

 private:
  launch::RoiPoolingGeometry g_;
};

KernelBuild BuildProposal(const KernelRequest& req, DeviceConstantStore& constants) {
  const ProposalParams p = ProposalParams::Parse(req.attrs);
  const ProposalDims d = ProposalDims::Of(p, req.inputs[0].type.shape);
  Check(d.batch <= int64_t{0x7fffffff}, Status::kUnsupported,
        req.attrs.Where() + "more images than " + req.device.ToString() + " handles (2^31)");
  launch::ProposalGeometry g;
  g.batch = d.batch, g.anchors = d.anchors, g.height = d.height, g.width = d.width;
  g.count = d.count, g.pre = d.pre, g.keep = d.keep, g.rows = d.rows;
  g.feature_stride = p.feature_stride, g.min_size = p.min_size, g.threshold = p.threshold;
  g.iou_loss = p.iou_loss, g.multi = p.multi;
  auto anchors =
      constants.GetDerived(req.attrs.node() + "/anchors", req.device, [&] { return ProposalBaseAnchors(p); });
  const size_t workspace = launch::ProposalWorkspace(g);
  ResourcesOf(req.device.id).streams.ReserveWorkspace(workspace);
  return RowMajorBuild(req, {0, 1, 2}, std::make_unique<ProposalKernel>(g, std::move(anchors), workspace));
}

KernelBuild BuildRoiPooling(const KernelRequest& req, DeviceConstantStore&) {
  const RoiPoolingParams p = RoiPoolingParams::Parse(req.attrs);
  const Shape& data = req.inputs[0].type.shape;
  launch::RoiPoolingGeometry g;
  g.batch = data[0], g.channels = data[1], g.height = data[2], g.width = data[3];
  g.rois = req.inputs[1].type.shape[0], g.pooled_h = p.pooled_h, g.pooled_w = p.pooled_w;
  g.spatial_scale = p.spatial_scale;
  return RowMajorBuild(req, {0, 1}, std::make_unique<RoiPoolingKernel>(g));
}

const CudaKernelRegistrar kProposal({"_contrib_Proposal", "_contrib_MultiProposal"}, BuildProposal);
const CudaKernelRegistrar kRoiPooling({"ROIPooling"}, BuildRoiPooling);

}  // namespace
}  // namespace qv::cuda
