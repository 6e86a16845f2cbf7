// The interleaved self-attention products and _contrib_div_sqrt_dim as loops over output elements
// (ops/transformer_math.h).
#include "backends/cpu/transformer_loop.h"
#include "ops/transformer_ops.h"

namespace qv::cpu {
namespace {

KernelBuild BuildQk(const KernelRequest& req) {
  const InterleavedGeometry g = ResolveInterleaved(req.attrs, req.inputs[0].type.shape);
  return BuildPlainLoop(req, ElementCount(req.outputs[0].shape),
                        [g](const std::vector<const float*>& in, float* out, int64_t i) {
                          out[i] = InterleavedQkElement(g, in[0], i);
                        });
}

KernelBuild BuildValAtt(const KernelRequest& req) {
  const InterleavedGeometry g = ResolveInterleaved(req.attrs, req.inputs[0].type.shape);
  return BuildPlainLoop(req, ElementCount(req.outputs[0].shape),
                        [g](const std::vector<const float*>& in, float* out, int64_t i) {
                          out[i] = InterleavedValAttElement(g, in[0], in[1], i);
                        });
}

KernelBuild BuildDivSqrtDim(const KernelRequest& req) {
  const float divisor = DivSqrtDimDivisor(req.inputs[0].type.shape);
  return BuildPlainLoop(req, ElementCount(req.outputs[0].shape),
                        [divisor](const std::vector<const float*>& in, float* out, int64_t i) {
                          out[i] = in[0][i] / divisor;
                        });
}

const CpuKernelRegistrar kQk({"_contrib_interleaved_matmul_selfatt_qk"}, BuildQk);
const CpuKernelRegistrar kValAtt({"_contrib_interleaved_matmul_selfatt_valatt"}, BuildValAtt);
const CpuKernelRegistrar kDivSqrtDim({"_contrib_div_sqrt_dim"}, BuildDivSqrtDim);

}  // namespace
}  // namespace qv::cpu
