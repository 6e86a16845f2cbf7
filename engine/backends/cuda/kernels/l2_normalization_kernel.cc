// L2Normalization (instance, channel, spatial) on the backend's own kernel (l2_normalization.cu).
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/device/device_kernels.h"
#include "ops/l2_normalization.h"

namespace qv::cuda {
namespace {

class L2NormKernel : public CudaKernel {
 public:
  explicit L2NormKernel(const L2NormGeometry& g) : g_(g) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    launch::L2Normalize(static_cast<const float*>(args.inputs[0]), static_cast<float*>(args.outputs[0]), g_.outer,
                        g_.axis, g_.inner, g_.eps, on.stream);
    CheckLaunch("the L2 normalisation kernel");
  }

 private:
  L2NormGeometry g_;
};

KernelBuild BuildL2Norm(const KernelRequest& req, DeviceConstantStore&) {
  return RowMajorBuild(req, {0}, std::make_unique<L2NormKernel>(ResolveL2Norm(req.attrs, req.inputs[0].type.shape)));
}

const CudaKernelRegistrar kRegister({"L2Normalization"}, BuildL2Norm);

}  // namespace
}  // namespace qv::cuda
