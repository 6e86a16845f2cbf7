// Activation, relu and sigmoid on oneDNN's eltwise primitive (any layout); softsign, which oneDNN lacks, as a loop.
#include <cmath>

#include "backends/cpu/kernels/eltwise.h"
#include "ops/activation.h"

namespace qv::cpu {
namespace {

dnnl::algorithm EltwiseAlgorithm(ActType t) {
  switch (t) {
    case ActType::kRelu: return dnnl::algorithm::eltwise_relu;
    case ActType::kSigmoid: return dnnl::algorithm::eltwise_logistic;
    case ActType::kTanh: return dnnl::algorithm::eltwise_tanh;
    case ActType::kSoftRelu: return dnnl::algorithm::eltwise_soft_relu;
    case ActType::kSoftSign: break;
  }
  return dnnl::algorithm::undef;
}

KernelBuild BuildActivation(const KernelRequest& req) {
  const ActType type = ParseActType(req.attrs);
  if (type == ActType::kSoftSign)
    return BuildElementwiseLoop(req, [](float x) { return x / (1.f + std::fabs(x)); }, /*keeps_zero=*/true);
  // oneDNN's soft_relu is log(1 + exp(alpha x)) / alpha: MXNet's is alpha = 1.
  const float alpha = type == ActType::kSoftRelu ? 1.f : 0.f;
  return BuildEltwise(req, EltwiseAlgorithm(type), alpha, 0.f);
}

const CpuKernelRegistrar kRegister({"Activation", "relu", "sigmoid"}, BuildActivation);

}  // namespace
}  // namespace qv::cpu
