// UpSampling. Nearest: a plain loop per input, each output row reading its input row at the input's
// factor, into its channel range (concat) or added to the output (sum). Bilinear: the Deconvolution
// kernel, with the attributes MXNet derives from scale (ops/upsampling.h).
#include <vector>

#include "backends/cpu/kernels/dnnl_kernel.h"
#include "ops/upsampling.h"
#include "backends/cpu/runtime/compute_pool.h"

namespace qv::cpu {
namespace {

class NearestKernel : public Kernel {
 public:
  NearestKernel(std::vector<Shape> inputs, Shape output, std::vector<int64_t> scales, bool sum)
      : inputs_(std::move(inputs)), out_(std::move(output)), scales_(std::move(scales)), sum_(sum) {}

  void Execute(const ExecArgs& args) const override {
    float* y = static_cast<float*>(args.outputs[0]);
    const int64_t oh = out_[2], ow = out_[3];
    int64_t first_channel = 0;
    for (size_t i = 0; i < inputs_.size(); ++i) {
      const float* x = static_cast<const float*>(args.inputs[i]);
      const Shape& in = inputs_[i];
      const int64_t s = scales_[i], channels = in[1], begin = sum_ ? 0 : first_channel;
      const bool add = sum_ && i > 0;
      // One task per output row of this input: (n, c, h).
      ParallelFor(args.threads, in[0] * channels * oh, [&](int64_t r) {
        const int64_t h = r % oh, nc = r / oh, c = nc % channels, n = nc / channels;
        const float* src = x + ((n * channels + c) * in[2] + h / s) * in[3];
        float* dst = y + ((n * out_[1] + begin + c) * oh + h) * ow;
        if (add) {
          for (int64_t w = 0; w < ow; ++w) dst[w] += src[w / s];
        } else {
          for (int64_t w = 0; w < ow; ++w) dst[w] = src[w / s];
        }
      });
      first_channel += channels;
    }
  }

 private:
  std::vector<Shape> inputs_;
  Shape out_;
  std::vector<int64_t> scales_;
  bool sum_;
};

KernelBuild BuildUpSampling(const KernelRequest& req) {
  const auto p = UpSamplingParams::Parse(req.attrs);
  if (p.bilinear) {
    const std::map<std::string, std::string> values = p.DeconvolutionAttrs();
    const Attrs attrs(values, req.attrs.op(), req.attrs.node());
    const KernelRequest deconvolution{attrs, req.constants, req.inputs, req.outputs, req.precision, req.device};
    return FindCpuKernel("Deconvolution").factory(deconvolution);
  }
  std::vector<Shape> shapes;
  for (const ValueInfo& in : req.inputs) shapes.push_back(in.type.shape);
  const Shape& out = req.outputs[0].shape;
  KernelBuild build = PlainIO(req);
  build.kernel = std::make_unique<NearestKernel>(shapes, out, NearestScales(req.attrs, shapes, out), p.sum);
  return build;
}

const CpuKernelRegistrar kRegister({"UpSampling"}, BuildUpSampling);

}  // namespace
}  // namespace qv::cpu
