// Scalar arithmetic as oneDNN's eltwise_linear (alpha * x + beta) in any layout; scalar / x, which
// would divide a blocked layout's zero padding, as a loop on row-major data.
#include "backends/cpu/eltwise.h"
#include "ops/scalar_arith.h"

namespace qv::cpu {
namespace {

class ScalarDivideKernel : public Kernel {
 public:
  ScalarDivideKernel(float scalar, int64_t n) : scalar_(scalar), n_(n) {}
  void Execute(const ExecArgs& args) const override {
    const float* x = static_cast<const float*>(args.inputs[0]);
    float* y = static_cast<float*>(args.outputs[0]);
#pragma omp parallel for num_threads(args.threads) schedule(static)
    for (int64_t i = 0; i < n_; ++i) y[i] = scalar_ / x[i];
  }

 private:
  float scalar_;
  int64_t n_;
};

KernelBuild BuildScalarArith(const KernelRequest& req) {
  const ScalarArith s = ScalarArith::Parse(req.attrs);
  const auto linear = dnnl::algorithm::eltwise_linear;
  switch (s.kind) {
    case ScalarArith::kPlus: return BuildEltwise(req, linear, 1.f, s.scalar);
    case ScalarArith::kMinus: return BuildEltwise(req, linear, 1.f, -s.scalar);
    case ScalarArith::kRMinus: return BuildEltwise(req, linear, -1.f, s.scalar);
    case ScalarArith::kMul: return BuildEltwise(req, linear, s.scalar, 0.f);
    case ScalarArith::kDiv: return BuildEltwise(req, linear, 1.f / s.scalar, 0.f);
    case ScalarArith::kRDiv: break;
  }
  const Shape& shape = req.inputs[0].type.shape;
  KernelBuild build;
  build.runtime_inputs = {0};
  build.input_descs = {PlainDesc(shape)};
  build.output_descs = {PlainDesc(shape)};
  build.kernel = std::make_unique<ScalarDivideKernel>(s.scalar, ElementCount(shape));
  return build;
}

const CpuKernelRegistrar kRegister({"_plus_scalar", "_PlusScalar", "_minus_scalar", "_MinusScalar", "_rminus_scalar",
                                    "_RMinusScalar", "_mul_scalar", "_MulScalar", "_div_scalar", "_DivScalar",
                                    "_rdiv_scalar", "_RDivScalar"},
                                   BuildScalarArith);

}  // namespace
}  // namespace qv::cpu
