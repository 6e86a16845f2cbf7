// Activation on oneDNN's eltwise primitive (any layout); softsign, which oneDNN lacks, as a loop.
#include <cmath>

#include "backends/cpu/eltwise.h"
#include "ops/activation.h"

namespace qv::cpu {
namespace {

class SoftSignKernel : public Kernel {
 public:
  explicit SoftSignKernel(int64_t n) : n_(n) {}
  void Execute(const ExecArgs& args) const override {
    const float* x = static_cast<const float*>(args.inputs[0]);
    float* y = static_cast<float*>(args.outputs[0]);
#pragma omp parallel for num_threads(args.threads) schedule(static)
    for (int64_t i = 0; i < n_; ++i) y[i] = x[i] / (1.f + std::fabs(x[i]));
  }

 private:
  int64_t n_;
};

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
  const ActType type = req.attrs.op() == "relu" ? ActType::kRelu : ParseActType(req.attrs);
  if (type == ActType::kSoftSign) {
    const Desc data = req.inputs[0].desc;
    KernelBuild build;
    build.runtime_inputs = {0};
    build.input_descs = {data};
    build.output_descs = {data};
    // Element-wise, so any layout works; padding elements stay 0 since softsign(0) = 0.
    build.kernel = std::make_unique<SoftSignKernel>(static_cast<int64_t>(data.get_size() / sizeof(float)));
    return build;
  }
  return BuildEltwise(req, EltwiseAlgorithm(type), 0.f, 0.f);
}

const CpuKernelRegistrar kRegister({"Activation", "relu"}, BuildActivation);

}  // namespace
}  // namespace qv::cpu
