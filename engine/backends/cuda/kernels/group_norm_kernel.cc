// GroupNorm on CUDA (group_norm.cu): gamma and beta, one value per group, uploaded once per node.
#include <vector>

#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/runtime/device_constants.h"
#include "backends/cuda/device/device_kernels.h"
#include "common/error.h"
#include "ops/group_norm.h"

namespace qv::cuda {
namespace {

class GroupNormKernel : public CudaKernel {
 public:
  GroupNormKernel(std::shared_ptr<const void> gamma_beta, const GroupNormGeometry& g)
      : gamma_beta_(std::move(gamma_beta)), g_(g) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    launch::GroupNorm(static_cast<const float*>(args.inputs[0]), static_cast<const float*>(gamma_beta_.get()),
                      static_cast<float*>(args.outputs[0]), g_.batch * g_.groups, g_.groups, g_.group_size, g_.eps,
                      on.stream);
    CheckLaunch("the group normalisation kernel");
  }

 private:
  std::shared_ptr<const void> gamma_beta_;  // groups gammas, then groups betas
  GroupNormGeometry g_;
};

KernelBuild BuildGroupNorm(const KernelRequest& req, DeviceConstantStore& constants) {
  const GroupNormGeometry g = ResolveGroupNorm(req.attrs, req.inputs[0].type.shape);
  for (int i = 1; i < 3; ++i)
    Check(req.inputs[i].constant != nullptr && !req.inputs[i].constant->is_packed(), Status::kUnsupported,
          req.attrs.Where() + "gamma and beta must be parameters");
  const auto join = [&] {
    const float* gamma = req.inputs[1].constant->plain().data_as<float>();
    const float* beta = req.inputs[2].constant->plain().data_as<float>();
    std::vector<float> gamma_beta(gamma, gamma + g.groups);
    gamma_beta.insert(gamma_beta.end(), beta, beta + g.groups);
    return gamma_beta;
  };
  auto gamma_beta = constants.GetDerived(req.attrs.node() + "/gamma_beta", req.device, join);
  return RowMajorBuild(req, {0}, std::make_unique<GroupNormKernel>(std::move(gamma_beta), g));
}

const CudaKernelRegistrar kRegister({"GroupNorm"}, BuildGroupNorm);

}  // namespace
}  // namespace qv::cuda
