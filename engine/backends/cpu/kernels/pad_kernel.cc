// Pad as a plain loop over output rows: the source index of each padded axis is looked up once, when
// the kernel is built (ops/pad.h: PadParams::Source); a row that falls in a constant pad is filled.
#include <vector>

#include "backends/cpu/kernels/dnnl_kernel.h"
#include "ops/pad.h"
#include "backends/cpu/runtime/compute_pool.h"

namespace qv::cpu {
namespace {

class PadKernel : public Kernel {
 public:
  // `sources[d]`: per output index along axis d, the input index it reads (-1: the constant).
  PadKernel(Shape in, Shape out, std::vector<std::vector<int64_t>> sources, float value)
      : in_(std::move(in)), out_(std::move(out)), sources_(std::move(sources)), value_(value) {}

  void Execute(const ExecArgs& args) const override {
    const float* x = static_cast<const float*>(args.inputs[0]);
    float* y = static_cast<float*>(args.outputs[0]);
    const int ndim = static_cast<int>(out_.size());
    const int64_t row = out_.back(), in_row = in_.back();
    const std::vector<int64_t>& last = sources_.back();
    ParallelFor(args.threads, ElementCount(out_) / row, [&](int64_t r) {
      // The input row this output row reads: the batch and channel indices pass through.
      int64_t rest = r, at = 0, stride = in_row;
      bool constant = false;
      for (int d = ndim - 2; d >= 0; --d) {
        const int64_t i = rest % out_[d], from = d < 2 ? i : sources_[d][i];
        rest /= out_[d];
        constant = constant || from < 0;
        at += from * stride;
        stride *= in_[d];
      }
      float* dst = y + r * row;
      if (constant) {
        for (int64_t w = 0; w < row; ++w) dst[w] = value_;
        return;
      }
      const float* src = x + at;
      for (int64_t w = 0; w < row; ++w) dst[w] = last[w] < 0 ? value_ : src[last[w]];
    });
  }

 private:
  Shape in_, out_;
  std::vector<std::vector<int64_t>> sources_;
  float value_;
};

KernelBuild BuildPad(const KernelRequest& req) {
  const auto p = PadParams::Parse(req.attrs);
  const Shape& in = req.inputs[0].type.shape;
  const Shape& out = req.outputs[0].shape;
  std::vector<std::vector<int64_t>> sources(out.size());
  for (size_t d = 2; d < out.size(); ++d)
    for (int64_t i = 0; i < out[d]; ++i) sources[d].push_back(p.Source(i, in[d], p.pad_width[2 * d]));
  KernelBuild build = PlainIO(req);
  build.kernel = std::make_unique<PadKernel>(in, out, std::move(sources), p.constant_value);
  return build;
}

const CpuKernelRegistrar kRegister({"Pad"}, BuildPad);

}  // namespace
}  // namespace qv::cpu
