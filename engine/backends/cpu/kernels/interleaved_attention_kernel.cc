// The interleaved self-attention products as oneDNN matmuls reading the queries, keys and values in
// place (strided views of the projections, ops/transformer_math.h's layout), or loops over output
// elements where oneDNN has no implementation; _contrib_div_sqrt_dim as a loop.
#include "backends/cpu/kernels/strided_matmul.h"
#include "backends/cpu/kernels/transformer_loop.h"
#include "ops/transformer_ops.h"

namespace qv::cpu {
namespace {

// Part `part` (0 query, 1 key, 2 value) of the projections as (attention batch, seq, head_dim), or
// transposed (attention batch, head_dim, seq).
MatrixView Part(const InterleavedGeometry& g, int part, bool transposed) {
  const int64_t batch_stride = 3 * g.head_dim, seq_stride = g.attention_batches() * 3 * g.head_dim;
  MatrixView v;
  v.offset = part * g.head_dim;
  if (transposed) {
    v.dims = {g.attention_batches(), g.head_dim, g.seq};
    v.strides = {batch_stride, 1, seq_stride};
  } else {
    v.dims = {g.attention_batches(), g.seq, g.head_dim};
    v.strides = {batch_stride, seq_stride, 1};
  }
  return v;
}

KernelBuild BuildQk(const KernelRequest& req) {
  const InterleavedGeometry g = ResolveInterleaved(req.attrs, req.inputs[0].type.shape);
  KernelBuild build = BuildPlainLoop(req, ElementCount(req.outputs[0].shape),
                                     [g](const std::vector<const float*>& in, float* out, int64_t i) {
                                       out[i] = InterleavedQkElement(g, in[0], i);
                                     });
  const MatrixView scores{0, {g.attention_batches(), g.seq, g.seq}, {g.seq * g.seq, g.seq, 1}};
  if (auto matmul = MakeStridedMatmul(Part(g, 0, false), Part(g, 1, true), scores, g.scale))
    build.kernel = std::move(matmul);
  return build;
}

KernelBuild BuildValAtt(const KernelRequest& req) {
  const InterleavedGeometry g = ResolveInterleaved(req.attrs, req.inputs[0].type.shape);
  KernelBuild build = BuildPlainLoop(req, ElementCount(req.outputs[0].shape),
                                     [g](const std::vector<const float*>& in, float* out, int64_t i) {
                                       out[i] = InterleavedValAttElement(g, in[0], in[1], i);
                                     });
  // The weights (input 1) times the values; the output (seq, batch * heads, head_dim) as
  // (attention batch, seq, head_dim).
  const MatrixView weights{1, {g.attention_batches(), g.seq, g.seq}, {g.seq * g.seq, g.seq, 1}};
  const MatrixView out{0, {g.attention_batches(), g.seq, g.head_dim},
                       {g.head_dim, g.attention_batches() * g.head_dim, 1}};
  if (auto matmul = MakeStridedMatmul(weights, Part(g, 2, false), out)) build.kernel = std::move(matmul);
  return build;
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
