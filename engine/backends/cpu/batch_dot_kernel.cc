// batch_dot as a loop over output elements (ops/transformer_math.h).
#include "backends/cpu/transformer_loop.h"
#include "ops/transformer_ops.h"

namespace qv::cpu {
namespace {

KernelBuild BuildBatchDot(const KernelRequest& req) {
  const BatchDotGeometry g = ResolveBatchDot(req.attrs, req.inputs[0].type.shape, req.inputs[1].type.shape);
  KernelBuild build = BuildPlainLoop(req, g.batch * g.m * g.n,
                                     [g](const std::vector<const float*>& in, float* out, int64_t i) {
                                       out[i] = BatchDotElement(g, in[0], in[1], i);
                                     });
  build.flops = 2.0 * static_cast<double>(g.batch) * g.m * g.n * g.k;
  return build;
}

const CpuKernelRegistrar kRegister({"batch_dot"}, BuildBatchDot);

}  // namespace
}  // namespace qv::cpu
