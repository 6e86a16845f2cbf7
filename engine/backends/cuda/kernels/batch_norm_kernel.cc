// Stand-alone BatchNorm (one the graph passes could not fold into a convolution), with an optional
// fused ReLU. The moving statistics are folded on the host, once per node, into a per-channel scale
// and shift (s = gamma / sqrt(var + eps), t = beta - mean * s), uploaded once; a run is one affine pass.
#include <vector>

#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/runtime/device_constants.h"
#include "backends/cuda/device/device_kernels.h"
#include "common/error.h"
#include "ops/batch_norm.h"

namespace qv::cuda {
namespace {

class BatchNormKernel : public CudaKernel {
 public:
  BatchNormKernel(std::shared_ptr<const void> scale_shift, int64_t n, int64_t channels, int64_t inner, bool relu)
      : scale_shift_(std::move(scale_shift)), n_(n), channels_(channels), inner_(inner), relu_(relu) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    const float* scale = static_cast<const float*>(scale_shift_.get());
    launch::ChannelAffine(static_cast<const float*>(args.inputs[0]), scale, scale + channels_,
                          static_cast<float*>(args.outputs[0]), n_, channels_, inner_, relu_, on.stream);
    CheckLaunch("the batch normalisation kernel");
  }

 private:
  std::shared_ptr<const void> scale_shift_;  // channels scales, then channels shifts
  int64_t n_, channels_, inner_;
  bool relu_;
};

KernelBuild BuildBatchNorm(const KernelRequest& req, DeviceConstantStore& constants) {
  const auto p = BatchNormParams::Parse(req.attrs);
  for (int i = 1; i < 5; ++i)
    Check(req.inputs[i].constant != nullptr && !req.inputs[i].constant->is_packed(), Status::kUnsupported,
          req.attrs.Where() + "gamma, beta and the moving statistics must be parameters");
  const Shape& shape = req.inputs[0].type.shape;
  Check(shape.size() >= 2, Status::kShape, req.attrs.Where() + "data must have a channel axis, got " + ShapeToString(shape));
  const int64_t channels = shape[1];
  const int64_t inner = ElementCount(shape) / (shape[0] * channels);
  const auto fold = [&] {
    const auto plain = [&](int input) { return req.inputs[input].constant->plain().data_as<float>(); };
    return p.ScaleShift(plain(1), plain(2), plain(3), plain(4), channels);
  };
  auto scale_shift = constants.GetDerived(req.attrs.node() + "/scale_shift", req.device, fold);
  bool relu = false;
  for (const PostOp& post : p.post_ops) relu = relu || post.kind == PostOp::kRelu;
  return RowMajorBuild(req, {0}, std::make_unique<BatchNormKernel>(std::move(scale_shift), ElementCount(shape),
                                                                   channels, inner, relu));
}

const CudaKernelRegistrar kRegister({"BatchNorm"}, BuildBatchNorm);

}  // namespace
}  // namespace qv::cuda
