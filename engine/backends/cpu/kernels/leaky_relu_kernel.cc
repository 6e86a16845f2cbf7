// LeakyReLU: leaky, rrelu, elu and gelu on oneDNN's eltwise primitive; selu and prelu as loops.
#include <cmath>

#include "backends/cpu/kernels/eltwise.h"
#include "ops/leaky_relu.h"
#include "backends/cpu/runtime/compute_pool.h"

namespace qv::cpu {
namespace {

// Row-major data viewed as (outer, channels, inner); gamma holds one slope per channel, or one in all.
class PReluKernel : public Kernel {
 public:
  PReluKernel(int64_t outer, int64_t channels, int64_t inner, bool shared)
      : outer_(outer), channels_(channels), inner_(inner), shared_(shared) {}
  void Execute(const ExecArgs& args) const override {
    const float* x = static_cast<const float*>(args.inputs[0]);
    const float* gamma = static_cast<const float*>(args.inputs[1]);
    float* y = static_cast<float*>(args.outputs[0]);
    const int64_t planes = outer_ * channels_;
    ParallelFor(args.threads, planes, [&](int64_t plane) {
      const float g = gamma[shared_ ? 0 : plane % channels_];
      const float* src = x + plane * inner_;
      float* dst = y + plane * inner_;
      for (int64_t i = 0; i < inner_; ++i) dst[i] = src[i] > 0.f ? src[i] : g * src[i];
    });
  }

 private:
  int64_t outer_, channels_, inner_;
  bool shared_;
};

KernelBuild BuildPRelu(const KernelRequest& req) {
  const Shape& x = req.inputs[0].type.shape;
  const PReluGeometry g = ResolvePRelu(x, req.inputs[1].type.shape);
  KernelBuild build = PlainIO(req);
  build.kernel = std::make_unique<PReluKernel>(g.outer, g.channels, g.inner, g.shared);
  return build;
}

KernelBuild BuildLeakyRelu(const KernelRequest& req) {
  const auto p = LeakyReluParams::Parse(req.attrs);
  switch (p.type) {
    case LeakyReluParams::kLeaky:
    case LeakyReluParams::kRRelu: return BuildEltwise(req, dnnl::algorithm::eltwise_relu, p.slope, 0.f);
    case LeakyReluParams::kElu: return BuildEltwise(req, dnnl::algorithm::eltwise_elu, p.slope, 0.f);
    case LeakyReluParams::kGelu: return BuildEltwise(req, dnnl::algorithm::eltwise_gelu_erf, 0.f, 0.f);
    case LeakyReluParams::kPRelu: return BuildPRelu(req);
    case LeakyReluParams::kSelu: break;
  }
  const float alpha = static_cast<float>(kSeluAlpha), lambda = static_cast<float>(kSeluLambda);
  return BuildElementwiseLoop(
      req, [=](float x) { return lambda * (x > 0.f ? x : alpha * std::expm1(x)); }, /*keeps_zero=*/true);
}

const CpuKernelRegistrar kRegister({"LeakyReLU"}, BuildLeakyRelu);

}  // namespace
}  // namespace qv::cpu
