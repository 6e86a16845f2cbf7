// Softmax as a numerically stable loop over (outer, axis, inner) on row-major data. It runs once at
// a network's end on small tensors, and this form covers every axis and temperature MXNet allows.
#include <algorithm>
#include <cmath>
#include <vector>

#include "backends/cpu/kernels/dnnl_kernel.h"
#include "ops/softmax.h"
#include "ops/transformer_math.h"
#include "backends/cpu/runtime/compute_pool.h"

namespace qv::cpu {
namespace {

class SoftmaxKernel : public Kernel {
 public:
  explicit SoftmaxKernel(const SoftmaxGeometry& g) : g_(g) {}

  void Execute(const ExecArgs& args) const override {
    const float* x = static_cast<const float*>(args.inputs[0]);
    float* y = static_cast<float*>(args.outputs[0]);
    const int64_t lanes = g_.outer * g_.inner;
    const float inv_t = static_cast<float>(1.0 / g_.temperature);
    const float* lengths = g_.use_length ? static_cast<const float*>(args.inputs[1]) : nullptr;
    ParallelFor(args.threads, lanes, [&](int64_t lane) {
      const int64_t o = lane / g_.inner, i = lane % g_.inner;
      const float* src = x + o * g_.axis * g_.inner + i;
      float* dst = y + o * g_.axis * g_.inner + i;
      if (lengths) {  // the lengths are laid out as the lanes are: (outer, inner)
        SoftmaxLengthLane(src, dst, g_.axis, g_.inner, KeptLength(lengths[lane], g_.axis), inv_t);
        return;
      }
      float max = src[0];
      for (int64_t a = 1; a < g_.axis; ++a) max = std::max(max, src[a * g_.inner]);
      double sum = 0.0;
      for (int64_t a = 0; a < g_.axis; ++a) {
        const float e = std::exp((src[a * g_.inner] - max) * inv_t);
        dst[a * g_.inner] = e;
        sum += e;
      }
      const float inv_sum = static_cast<float>(1.0 / sum);
      for (int64_t a = 0; a < g_.axis; ++a) dst[a * g_.inner] *= inv_sum;
    });
  }

 private:
  SoftmaxGeometry g_;
};

KernelBuild BuildSoftmax(const KernelRequest& req) {
  const Shape& x = req.inputs[0].type.shape;
  const SoftmaxGeometry g = ResolveSoftmax(req.attrs, x);
  KernelBuild build;
  build.runtime_inputs = {0};
  build.input_descs = {PlainDesc(x)};
  if (g.use_length) {
    build.runtime_inputs.push_back(1);
    build.input_descs.push_back(PlainDesc(req.inputs[1].type.shape));
  }
  build.output_descs = {PlainDesc(x)};
  build.kernel = std::make_unique<SoftmaxKernel>(g);
  return build;
}

const CpuKernelRegistrar kRegister({"softmax", "SoftmaxActivation", "SoftmaxOutput"}, BuildSoftmax);

}  // namespace
}  // namespace qv::cpu
