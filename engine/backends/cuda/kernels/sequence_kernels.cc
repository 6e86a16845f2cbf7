// Embedding and SequenceLast: rows picked by the values of an index input (sequence.cu).
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/runtime/device_constants.h"
#include "backends/cuda/device/device_kernels.h"
#include "common/error.h"
#include "ops/embedding.h"
#include "ops/sequence_last.h"

namespace qv::cuda {
namespace {

class EmbeddingKernel : public CudaKernel {
 public:
  EmbeddingKernel(std::shared_ptr<const void> weight, const EmbeddingParams& p, int64_t ids)
      : weight_(std::move(weight)), p_(p), ids_(ids) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    launch::Embedding(static_cast<const float*>(args.inputs[0]), static_cast<const float*>(weight_.get()),
                      static_cast<float*>(args.outputs[0]), ids_, p_.input_dim, p_.output_dim, on.stream);
    CheckLaunch("the Embedding kernel");
  }

 private:
  std::shared_ptr<const void> weight_;
  EmbeddingParams p_;
  int64_t ids_;
};

KernelBuild BuildEmbedding(const KernelRequest& req, DeviceConstantStore& constants) {
  const EmbeddingParams p = EmbeddingParams::Parse(req.attrs);
  Check(req.inputs[1].constant != nullptr, Status::kUnsupported, req.attrs.Where() + "weight must be a parameter");
  return RowMajorBuild(req, {0},
                       std::make_unique<EmbeddingKernel>(constants.Get(req.inputs[1].constant, req.device), p,
                                                         ElementCount(req.inputs[0].type.shape)));
}

class SequenceLastKernel : public CudaKernel {
 public:
  explicit SequenceLastKernel(const SequenceLastGeometry& g) : g_(g) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    launch::SequenceLast(static_cast<const float*>(args.inputs[0]),
                         g_.use_length ? static_cast<const float*>(args.inputs[1]) : nullptr,
                         static_cast<float*>(args.outputs[0]), g_.steps, g_.batch, g_.row, g_.batch_major, on.stream);
    CheckLaunch("the SequenceLast kernel");
  }

 private:
  SequenceLastGeometry g_;
};

KernelBuild BuildSequenceLast(const KernelRequest& req, DeviceConstantStore&) {
  const SequenceLastGeometry g = ResolveSequenceLast(req.attrs, req.inputs[0].type.shape);
  std::vector<int> inputs = {0};
  if (g.use_length) inputs.push_back(1);
  return RowMajorBuild(req, inputs, std::make_unique<SequenceLastKernel>(g));
}

const CudaKernelRegistrar kEmbedding({"Embedding"}, BuildEmbedding);
const CudaKernelRegistrar kSequenceLast({"SequenceLast"}, BuildSequenceLast);

}  // namespace
}  // namespace qv::cuda
