// softmax (any axis, temperature, lengths), SoftmaxActivation and SoftmaxOutput in inference.
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/device/device_kernels.h"
#include "ops/softmax.h"

namespace qv::cuda {
namespace {

class SoftmaxKernel : public CudaKernel {
 public:
  explicit SoftmaxKernel(const SoftmaxGeometry& g) : g_(g) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    const float inv_t = static_cast<float>(1.0 / g_.temperature);
    if (g_.use_length) {
      launch::SoftmaxWithLength(static_cast<const float*>(args.inputs[0]), static_cast<const float*>(args.inputs[1]),
                                static_cast<float*>(args.outputs[0]), g_.outer, g_.axis, g_.inner, inv_t, on.stream);
    } else {
      launch::Softmax(static_cast<const float*>(args.inputs[0]), static_cast<float*>(args.outputs[0]), g_.outer, g_.axis,
                      g_.inner, inv_t, on.stream);
    }
    CheckLaunch("the softmax kernel");
  }

 private:
  SoftmaxGeometry g_;
};

KernelBuild BuildSoftmax(const KernelRequest& req, DeviceConstantStore&) {
  const SoftmaxGeometry g = ResolveSoftmax(req.attrs, req.inputs[0].type.shape);
  return RowMajorBuild(req, g.use_length ? std::vector<int>{0, 1} : std::vector<int>{0},
                       std::make_unique<SoftmaxKernel>(g));
}

const CudaKernelRegistrar kRegister({"softmax", "SoftmaxActivation", "SoftmaxOutput"}, BuildSoftmax);

}  // namespace
}  // namespace qv::cuda
