// Embedding and SequenceLast: row copies picked by the values of an index input (ids, lengths).
#include <algorithm>

#include "backends/cpu/runtime/constant_cache.h"
#include "common/error.h"
#include "ops/embedding.h"
#include "ops/sequence_last.h"
#include "backends/cpu/runtime/compute_pool.h"

namespace qv::cpu {
namespace {

class EmbeddingKernel : public Kernel {
 public:
  EmbeddingKernel(std::shared_ptr<void> weight, const EmbeddingParams& p, int64_t ids)
      : weight_(std::move(weight)), p_(p), ids_(ids) {}
  void Execute(const ExecArgs& args) const override {
    const float* ids = static_cast<const float*>(args.inputs[0]);
    const float* weight = static_cast<const float*>(weight_.get());
    float* out = static_cast<float*>(args.outputs[0]);
    ParallelFor(args.threads, ids_, [&](int64_t i) {
      const float* row = weight + EmbeddingRow(ids[i], p_.input_dim) * p_.output_dim;
      std::copy(row, row + p_.output_dim, out + i * p_.output_dim);
    });
  }

 private:
  std::shared_ptr<void> weight_;
  EmbeddingParams p_;
  int64_t ids_;
};

KernelBuild BuildEmbedding(const KernelRequest& req) {
  const EmbeddingParams p = EmbeddingParams::Parse(req.attrs);
  Check(req.inputs[1].constant != nullptr, Status::kUnsupported, req.attrs.Where() + "weight must be a parameter");
  const Desc weight = PlainDesc(req.inputs[1].type.shape);
  KernelBuild build;
  AddRuntimeInput(build, 0, PlainDesc(req.inputs[0].type.shape));
  AddOutput(build, PlainDesc(req.outputs[0].shape));
  build.kernel = std::make_unique<EmbeddingKernel>(CpuConstants(req).Get(req.inputs[1].constant, weight, weight), p,
                                                   ElementCount(req.inputs[0].type.shape));
  return build;
}

class SequenceLastKernel : public Kernel {
 public:
  explicit SequenceLastKernel(const SequenceLastGeometry& g) : g_(g) {}
  void Execute(const ExecArgs& args) const override {
    const float* x = static_cast<const float*>(args.inputs[0]);
    const float* lengths = g_.use_length ? static_cast<const float*>(args.inputs[1]) : nullptr;
    float* y = static_cast<float*>(args.outputs[0]);
    for (int64_t n = 0; n < g_.batch; ++n) {
      const int64_t t = lengths ? SequenceLastStep(lengths[n], g_.steps) : g_.steps - 1;
      const int64_t row = g_.batch_major ? n * g_.steps + t : t * g_.batch + n;
      std::copy(x + row * g_.row, x + (row + 1) * g_.row, y + n * g_.row);
    }
  }

 private:
  SequenceLastGeometry g_;
};

KernelBuild BuildSequenceLast(const KernelRequest& req) {
  const SequenceLastGeometry g = ResolveSequenceLast(req.attrs, req.inputs[0].type.shape);
  KernelBuild build = PlainIO(req);
  build.kernel = std::make_unique<SequenceLastKernel>(g);
  return build;
}

const CpuKernelRegistrar kEmbedding({"Embedding"}, BuildEmbedding);
const CpuKernelRegistrar kSequenceLast({"SequenceLast"}, BuildSequenceLast);

}  // namespace
}  // namespace qv::cpu
