// _contrib_ROIAlign (roi_align.cu): ROIs the CPU refuses give NaN cells here.
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/device/device_kernels.h"
#include "ops/roi_align.h"

namespace qv::cuda {
namespace {

class RoiAlignKernel : public CudaKernel {
 public:
  explicit RoiAlignKernel(const RoiAlignGeometry& g) : g_(g) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    launch::RoiAlign(g_, static_cast<const float*>(args.inputs[0]), static_cast<const float*>(args.inputs[1]),
                     static_cast<float*>(args.outputs[0]), on.stream);
    CheckLaunch("the ROIAlign kernel");
  }

 private:
  RoiAlignGeometry g_;
};

KernelBuild BuildRoiAlign(const KernelRequest& req, DeviceConstantStore&) {
  const RoiAlignGeometry g = ResolveRoiAlign(req.attrs, req.inputs[0].type.shape, req.inputs[1].type.shape);
  return RowMajorBuild(req, {0, 1}, std::make_unique<RoiAlignKernel>(g));
}

const CudaKernelRegistrar kRegister({"_contrib_ROIAlign"}, BuildRoiAlign);

}  // namespace
}  // namespace qv::cuda
