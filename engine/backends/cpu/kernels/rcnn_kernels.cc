// The symbolic Faster R-CNN's operators in plain C++: _contrib_Proposal and _contrib_MultiProposal
// (ops/proposal.h's MXNet algorithm, the base anchors made when the plan is built, one image per task)
// and ROIPooling (ops/roi_pooling.h, one ROI and channel per task).
#include <string>
#include <vector>

#include "backends/cpu/kernels/dnnl_kernel.h"
#include "ops/proposal.h"
#include "ops/roi_pooling.h"
#include "backends/cpu/runtime/compute_pool.h"

namespace qv::cpu {
namespace {

class ProposalKernel : public Kernel {
 public:
  ProposalKernel(const ProposalParams& p, const ProposalDims& d, std::string where)
      : p_(p), d_(d), anchors_(ProposalBaseAnchors(p)), where_(std::move(where)) {}

  void Execute(const ExecArgs& args) const override {
    const float* cls_prob = static_cast<const float*>(args.inputs[0]);
    const float* bbox_pred = static_cast<const float*>(args.inputs[1]);
    const float* im_info = static_cast<const float*>(args.inputs[2]);
    float* rois = static_cast<float*>(args.outputs[0]);
    float* scores = args.outputs.size() > 1 ? static_cast<float*>(args.outputs[1]) : nullptr;
    for (int64_t n = 0; n < d_.batch; ++n) CheckProposalImInfo(p_, d_, im_info + n * 3, n, where_);
    const int64_t plane = d_.height * d_.width;
    ParallelFor(args.threads, d_.batch, [&](int64_t n) {
      // The foreground scores are the second half of the image's channels.
      const float* fg = cls_prob + (n * 2 + 1) * d_.anchors * plane;
      ProposeImage(p_, d_, anchors_.data(), fg, bbox_pred + n * 4 * d_.anchors * plane, im_info + n * 3,
                   p_.multi ? static_cast<float>(n) : 0.f, rois + n * d_.rows * 5,
                   scores ? scores + n * d_.rows : nullptr);
    });
  }

 private:
  ProposalParams p_;
  ProposalDims d_;
  std::vector<float> anchors_;
  std::string where_;
};

class RoiPoolingKernel : public Kernel {
 public:
  RoiPoolingKernel(const RoiPoolingParams& p, const Shape& data, int64_t rois)
      : p_(p), batch_(data[0]), channels_(data[1]), height_(data[2]), width_(data[3]), rois_(rois) {}

  void Execute(const ExecArgs& args) const override {
    const float* data = static_cast<const float*>(args.inputs[0]);
    const float* rois = static_cast<const float*>(args.inputs[1]);
    float* out = static_cast<float*>(args.outputs[0]);
    const int64_t per_roi = channels_ * p_.pooled_h * p_.pooled_w;
    ParallelFor(args.threads, rois_ * channels_, [&](int64_t i) {
      const int64_t r = i / channels_, c = i % channels_;
      RoiPoolOne(p_, data, batch_, channels_, height_, width_, rois + r * 5, c, c + 1, out + r * per_roi);
    });
  }

 private:
  RoiPoolingParams p_;
  int64_t batch_, channels_, height_, width_, rois_;
};

KernelBuild BuildProposal(const KernelRequest& req) {
  const ProposalParams p = ProposalParams::Parse(req.attrs);
  KernelBuild build;
  for (int i = 0; i < 3; ++i) AddRuntimeInput(build, i, PlainDesc(req.inputs[i].type.shape));
  for (const TensorType& out : req.outputs) AddOutput(build, PlainDesc(out.shape));
  build.kernel = std::make_unique<ProposalKernel>(p, ProposalDims::Of(p, req.inputs[0].type.shape), req.attrs.Where());
  return build;
}

KernelBuild BuildRoiPooling(const KernelRequest& req) {
  KernelBuild build = PlainIO(req);
  build.kernel = std::make_unique<RoiPoolingKernel>(RoiPoolingParams::Parse(req.attrs), req.inputs[0].type.shape,
                                                    req.inputs[1].type.shape[0]);
  return build;
}

const CpuKernelRegistrar kProposal({"_contrib_Proposal", "_contrib_MultiProposal"}, BuildProposal);
const CpuKernelRegistrar kRoiPooling({"ROIPooling"}, BuildRoiPooling);

}  // namespace
}  // namespace qv::cpu
