// LayerNorm over the last axis as oneDNN's layer normalization (gamma and beta as its scale and shift);
// over another axis as a loop over lanes (ops/transformer_math.h).
#include "backends/cpu/kernels/transformer_loop.h"
#include "ops/transformer_ops.h"

namespace qv::cpu {
namespace {

KernelBuild BuildLayerNorm(const KernelRequest& req) {
  const LayerNormGeometry g = ResolveLayerNorm(req.attrs, req.inputs[0].type.shape);
  KernelBuild build =
      BuildPlainLoop(req, g.outer * g.inner, [g](const std::vector<const float*>& in, float* out, int64_t lane) {
        const int64_t offset = (lane / g.inner) * g.axis * g.inner + lane % g.inner;
        LayerNormLane(in[0] + offset, out + offset, in[1], in[2], g.axis, g.inner, g.eps);
      });
  if (g.inner != 1) return build;
  const Desc data = PlainDesc({g.outer, g.axis}), affine = PlainDesc({g.axis});
  const dnnl::layer_normalization_forward::primitive_desc pd(
      CpuEngine(), dnnl::prop_kind::forward_inference, data, data, g.eps,
      dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift, BaseAttr());
  std::unordered_map<int, ArgSource> args;
  args[DNNL_ARG_SRC] = {ArgSource::kInput, 0, nullptr, data};
  args[DNNL_ARG_SCALE] = {ArgSource::kInput, 1, nullptr, affine};
  args[DNNL_ARG_SHIFT] = {ArgSource::kInput, 2, nullptr, affine};
  args[DNNL_ARG_DST] = {ArgSource::kOutput, 0, nullptr, data};
  build.kernel = std::make_unique<DnnlKernel>(pd, std::move(args));
  return build;
}

const CpuKernelRegistrar kRegister({"LayerNorm"}, BuildLayerNorm);

}  // namespace
}  // namespace qv::cpu
