// softmax (any axis, temperature), SoftmaxActivation and SoftmaxOutput in inference.
#include "backends/cuda/cuda_kernel.h"
#include "backends/cuda/device_kernels.h"
#include "ops/softmax.h"

namespace qv::cuda {
namespace {

class SoftmaxKernel : public CudaKernel {
 public:
  explicit SoftmaxKernel(const SoftmaxGeometry& g) : g_(g) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    launch::Softmax(static_cast<const float*>(args.inputs[0]), static_cast<float*>(args.outputs[0]), g_.outer, g_.axis,
                    g_.inner, static_cast<float>(1.0 / g_.temperature), on.stream);
    CheckLaunch("the softmax kernel");
  }

 private:
  SoftmaxGeometry g_;
};

KernelBuild BuildSoftmax(const KernelRequest& req, DeviceConstantStore&) {
  return RowMajorBuild(req, {0}, std::make_unique<SoftmaxKernel>(ResolveSoftmax(req.attrs, req.inputs[0].type.shape)));
}

const CudaKernelRegistrar kRegister({"softmax", "SoftmaxActivation", "SoftmaxOutput"}, BuildSoftmax);

}  // namespace
}  // namespace qv::cuda
