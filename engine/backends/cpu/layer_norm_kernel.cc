// LayerNorm as a loop over lanes (ops/transformer_math.h), one lane per output row along the axis.
#include "backends/cpu/transformer_loop.h"
#include "ops/transformer_ops.h"

namespace qv::cpu {
namespace {

KernelBuild BuildLayerNorm(const KernelRequest& req) {
  const LayerNormGeometry g = ResolveLayerNorm(req.attrs, req.inputs[0].type.shape);
  return BuildPlainLoop(req, g.outer * g.inner, [g](const std::vector<const float*>& in, float* out, int64_t lane) {
    const int64_t offset = (lane / g.inner) * g.axis * g.inner + lane % g.inner;
    LayerNormLane(in[0] + offset, out + offset, in[1], in[2], g.axis, g.inner, g.eps);
  });
}

const CpuKernelRegistrar kRegister({"LayerNorm"}, BuildLayerNorm);

}  // namespace
}  // namespace qv::cpu
