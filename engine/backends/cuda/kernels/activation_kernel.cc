// Activation (relu, sigmoid, tanh, softrelu, softsign), relu and sigmoid on the element-wise kernel.
#include "backends/cuda/kernels/unary_kernel.h"
#include "ops/activation.h"

namespace qv::cuda {
namespace {

launch::UnaryFn FunctionOf(ActType type) {
  switch (type) {
    case ActType::kRelu: return launch::UnaryFn::kRelu;
    case ActType::kSigmoid: return launch::UnaryFn::kSigmoid;
    case ActType::kTanh: return launch::UnaryFn::kTanh;
    case ActType::kSoftRelu: return launch::UnaryFn::kSoftRelu;
    case ActType::kSoftSign: break;
  }
  return launch::UnaryFn::kSoftSign;
}

KernelBuild BuildActivation(const KernelRequest& req, DeviceConstantStore&) {
  const ActType type = ParseActType(req.attrs);
  return BuildUnary(req, FunctionOf(type));
}

const CudaKernelRegistrar kRegister({"Activation", "relu", "sigmoid"}, BuildActivation);

}  // namespace
}  // namespace qv::cuda
