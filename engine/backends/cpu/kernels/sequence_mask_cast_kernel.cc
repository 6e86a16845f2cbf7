// SequenceMask and Cast as loops over elements (ops/transformer_math.h, ops/cast.h).
#include <cmath>

#include "backends/cpu/kernels/transformer_loop.h"
#include "ops/cast.h"
#include "ops/transformer_ops.h"

namespace qv::cpu {
namespace {

KernelBuild BuildSequenceMask(const KernelRequest& req) {
  const SequenceMaskGeometry g = ResolveSequenceMask(req.attrs, req.inputs[0].type.shape);
  const bool masks = req.inputs.size() == 2;
  return BuildPlainLoop(req, ElementCount(req.outputs[0].shape),
                        [g, masks](const std::vector<const float*>& in, float* out, int64_t i) {
                          out[i] = masks ? SequenceMaskElement(g, in[0], in[1], i) : in[0][i];
                        });
}

KernelBuild BuildCast(const KernelRequest& req) {
  const bool truncates = CastTruncates(req.attrs);
  return BuildPlainLoop(req, ElementCount(req.outputs[0].shape),
                        [truncates](const std::vector<const float*>& in, float* out, int64_t i) {
                          out[i] = truncates ? std::trunc(in[0][i]) : in[0][i];
                        });
}

const CpuKernelRegistrar kSequenceMask({"SequenceMask"}, BuildSequenceMask);
const CpuKernelRegistrar kCast({"Cast"}, BuildCast);

}  // namespace
}  // namespace qv::cpu
