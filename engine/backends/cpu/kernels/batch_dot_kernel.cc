// batch_dot and dot as oneDNN's matmul over the operands as stored (a transposed operand is a strided
// view), or a loop over output elements (ops/transformer_math.h) where oneDNN has no implementation.
#include "backends/cpu/kernels/strided_matmul.h"
#include "backends/cpu/kernels/transformer_loop.h"
#include "ops/transformer_ops.h"

namespace qv::cpu {
namespace {

KernelBuild BuildProduct(const KernelRequest& req, const BatchDotGeometry& g) {
  KernelBuild build = BuildPlainLoop(req, g.batch * g.m * g.n,
                                     [g](const std::vector<const float*>& in, float* out, int64_t i) {
                                       out[i] = BatchDotElement(g, in[0], in[1], i);
                                     });
  // (m x k) stored as is, or as (k x m); (k x n) likewise.
  const MatrixView a{0, {g.batch, g.m, g.k}, g.transpose_a ? dnnl::memory::dims{g.m * g.k, 1, g.m}
                                                           : dnnl::memory::dims{g.m * g.k, g.k, 1}};
  const MatrixView b{1, {g.batch, g.k, g.n}, g.transpose_b ? dnnl::memory::dims{g.k * g.n, 1, g.k}
                                                           : dnnl::memory::dims{g.k * g.n, g.n, 1}};
  const MatrixView dst{0, {g.batch, g.m, g.n}, {g.m * g.n, g.n, 1}};
  if (auto matmul = MakeStridedMatmul(a, b, dst)) build.kernel = std::move(matmul);
  build.flops = 2.0 * static_cast<double>(g.batch) * g.m * g.n * g.k;
  return build;
}

KernelBuild BuildBatchDot(const KernelRequest& req) {
  return BuildProduct(req, ResolveBatchDot(req.attrs, req.inputs[0].type.shape, req.inputs[1].type.shape));
}

KernelBuild BuildDot(const KernelRequest& req) {
  return BuildProduct(req, ResolveDot(req.attrs, req.inputs[0].type.shape, req.inputs[1].type.shape));
}

const CpuKernelRegistrar kBatchDot({"batch_dot"}, BuildBatchDot);
const CpuKernelRegistrar kDot({"dot"}, BuildDot);

}  // namespace
}  // namespace qv::cpu
