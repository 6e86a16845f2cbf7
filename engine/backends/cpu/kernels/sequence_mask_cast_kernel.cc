// SequenceMask row by row and Cast as a loop over elements (ops/transformer_math.h, ops/cast.h).
#include <algorithm>
#include <cmath>

#include "backends/cpu/kernels/transformer_loop.h"
#include "ops/cast.h"
#include "ops/transformer_ops.h"

namespace qv::cpu {
namespace {

// Row by row: each (position, sequence) row of `rest` elements is copied or filled whole, as
// SequenceMaskKeepsRow decides (BERT's final mask: 128 rows of 768).
class SequenceMaskKernel : public Kernel {
 public:
  explicit SequenceMaskKernel(const SequenceMaskGeometry& g) : g_(g) {}
  void Execute(const ExecArgs& args) const override {
    const auto* x = static_cast<const float*>(args.inputs[0]);
    const auto* lengths = args.inputs.size() == 2 ? static_cast<const float*>(args.inputs[1]) : nullptr;
    auto* out = static_cast<float*>(args.outputs[0]);
    ParallelFor(args.threads, g_.seq * g_.batch, [&](int64_t row) {
      const int64_t at = row * g_.rest;
      if (!lengths || SequenceMaskKeepsRow(g_, lengths, row))
        std::copy(x + at, x + at + g_.rest, out + at);
      else
        std::fill(out + at, out + at + g_.rest, g_.value);
    });
  }

 private:
  SequenceMaskGeometry g_;
};

KernelBuild BuildSequenceMask(const KernelRequest& req) {
  KernelBuild build = PlainIO(req);
  build.kernel = std::make_unique<SequenceMaskKernel>(ResolveSequenceMask(req.attrs, req.inputs[0].type.shape));
  return build;
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
