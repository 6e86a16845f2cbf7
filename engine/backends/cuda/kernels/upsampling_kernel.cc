// UpSampling on CUDA. Nearest: one launch per input into its channel range (concat) or added to the
// output (sum; the first input writes it). Bilinear: the Deconvolution kernel (cuDNN), with the
// attributes MXNet derives from scale (ops/upsampling.h).
#include <vector>

#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/device/device_kernels.h"
#include "ops/upsampling.h"

namespace qv::cuda {
namespace {

class NearestKernel : public CudaKernel {
 public:
  NearestKernel(std::vector<Shape> inputs, Shape output, std::vector<int64_t> scales, bool sum)
      : inputs_(std::move(inputs)), out_(std::move(output)), scales_(std::move(scales)), sum_(sum) {}

  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    int64_t first_channel = 0;
    for (size_t i = 0; i < inputs_.size(); ++i) {
      const Shape& in = inputs_[i];
      launch::UpsampleNearest(static_cast<const float*>(args.inputs[i]), static_cast<float*>(args.outputs[0]), in[0],
                              in[1], in[2], in[3], out_[1], sum_ ? 0 : first_channel, scales_[i], sum_ && i > 0,
                              on.stream);
      CheckLaunch("the nearest upsampling kernel");
      first_channel += in[1];
    }
  }

 private:
  std::vector<Shape> inputs_;
  Shape out_;
  std::vector<int64_t> scales_;
  bool sum_;
};

KernelBuild BuildUpSampling(const KernelRequest& req, DeviceConstantStore& constants) {
  const auto p = UpSamplingParams::Parse(req.attrs);
  if (p.bilinear) {
    const std::map<std::string, std::string> values = p.DeconvolutionAttrs();
    const Attrs attrs(values, req.attrs.op(), req.attrs.node());
    return FindCudaKernel("Deconvolution")({attrs, req.constants, req.inputs, req.outputs, req.precision, req.device},
                                           constants);
  }
  std::vector<Shape> shapes;
  std::vector<int> runtime_inputs;
  for (size_t i = 0; i < req.inputs.size(); ++i) {
    shapes.push_back(req.inputs[i].type.shape);
    runtime_inputs.push_back(static_cast<int>(i));
  }
  const Shape& out = req.outputs[0].shape;
  std::vector<int64_t> scales = NearestScales(req.attrs, shapes, out);
  return RowMajorBuild(req, std::move(runtime_inputs),
                       std::make_unique<NearestKernel>(std::move(shapes), out, std::move(scales), p.sum));
}

const CudaKernelRegistrar kRegister({"UpSampling"}, BuildUpSampling);

}  // namespace
}  // namespace qv::cuda
