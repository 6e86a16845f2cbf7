// LeakyReLU: the one-slope forms (leaky, rrelu, elu, selu, gelu) on the element-wise kernel; prelu,
// which reads a slope per channel (axis 1, or axis 0 of 1-D data) from gamma, on its own kernel.
#include "backends/cuda/kernels/unary_kernel.h"
#include "ops/leaky_relu.h"

namespace qv::cuda {
namespace {

class PReluKernel : public CudaKernel {
 public:
  PReluKernel(int64_t n, int64_t channels, int64_t inner, bool shared)
      : n_(n), channels_(channels), inner_(inner), shared_(shared) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    launch::PRelu(static_cast<const float*>(args.inputs[0]), static_cast<const float*>(args.inputs[1]),
                  static_cast<float*>(args.outputs[0]), n_, channels_, inner_, shared_, on.stream);
    CheckLaunch("the prelu kernel");
  }

 private:
  int64_t n_, channels_, inner_;
  bool shared_;
};

// gamma is a runtime input: when it is a parameter (as MXNet writes it), the backend hands the kernel
// its device copy.
KernelBuild BuildPRelu(const KernelRequest& req) {
  const Shape& x = req.inputs[0].type.shape;
  const PReluGeometry g = ResolvePRelu(x, req.inputs[1].type.shape);
  return RowMajorBuild(req, {0, 1}, std::make_unique<PReluKernel>(ElementCount(x), g.channels, g.inner, g.shared));
}

KernelBuild BuildLeakyRelu(const KernelRequest& req, DeviceConstantStore&) {
  const auto p = LeakyReluParams::Parse(req.attrs);
  switch (p.type) {
    case LeakyReluParams::kLeaky:
    case LeakyReluParams::kRRelu: return BuildUnary(req, launch::UnaryFn::kLeaky, p.slope);
    case LeakyReluParams::kElu: return BuildUnary(req, launch::UnaryFn::kElu, p.slope);
    case LeakyReluParams::kSelu: return BuildUnary(req, launch::UnaryFn::kSelu);
    case LeakyReluParams::kGelu: return BuildUnary(req, launch::UnaryFn::kGelu);
    case LeakyReluParams::kPRelu: break;
  }
  return BuildPRelu(req);
}

const CudaKernelRegistrar kRegister({"LeakyReLU"}, BuildLeakyRelu);

}  // namespace
}  // namespace qv::cuda
