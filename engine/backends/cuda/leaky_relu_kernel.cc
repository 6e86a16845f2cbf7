// LeakyReLU's one-slope forms (leaky, rrelu, elu, selu, gelu) on the element-wise kernel. prelu,
// which reads a slope per channel, has no CUDA kernel yet and is refused naming it.
#include "backends/cuda/unary_kernel.h"
#include "common/error.h"
#include "ops/leaky_relu.h"

namespace qv::cuda {
namespace {

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
  throw Error(Status::kUnsupported, req.attrs.Where() + "act_type 'prelu' has no kernel on " + req.device.ToString());
}

const CudaKernelRegistrar kRegister({"LeakyReLU"}, BuildLeakyRelu);

}  // namespace
}  // namespace qv::cuda
