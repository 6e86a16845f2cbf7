// Softmax as a numerically stable loop over (outer, axis, inner) on row-major data, every axis and
// temperature MXNet allows, with or without lengths. Over the last axis (a classifier's end, a
// transformer's attention: BERT-base runs 12 of 12x128x128 at sequence 128) each lane is contiguous and
// runs as vector loops (vector_math.h); other axes' strided lanes run as ops/transformer_math.h's loop.
#include <algorithm>
#include <cmath>
#include <vector>

#include "backends/cpu/kernels/dnnl_kernel.h"
#include "backends/cpu/kernels/vector_math.h"
#include "backends/cpu/runtime/compute_pool.h"
#include "ops/softmax.h"
#include "ops/transformer_math.h"

namespace qv::cpu {
namespace {

// One contiguous lane of n values: the first `length` normalised, the rest 0.
QV_VECTOR_FUNCTION(void, SoftmaxRow, (const float* x, float* y, int64_t n, int64_t length, float inv_temperature), (x, y,
                   n, length, inv_temperature)) {
  int64_t a = 0;
  float max = length > 0 ? x[0] : 0.f;
  if (length >= 16) {
    Vec16 m = LoadVec(x);
    for (a = 16; a + 16 <= length; a += 16) {
      const Vec16 v = LoadVec(x + a);
      m = m > v ? m : v;
    }
    for (int i = 0; i < 16; ++i) max = std::max(max, m[i]);
  }
  for (; a < length; ++a) max = std::max(max, x[a]);
  for (a = 0; a < length; ++a) y[a] = VecExp((x[a] - max) * inv_temperature);
  Vec16 sums{};
  for (a = 0; a + 16 <= length; a += 16) sums += LoadVec(y + a);
  float sum = 0.f;
  for (int i = 0; i < 16; ++i) sum += sums[i];
  for (; a < length; ++a) sum += y[a];
  const float inv_sum = 1.f / sum;
  for (a = 0; a < length; ++a) y[a] *= inv_sum;
  for (; a < n; ++a) y[a] = 0.f;
}

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
      // The lengths are laid out as the lanes are: (outer, inner).
      const int64_t length = lengths ? KeptLength(lengths[lane], g_.axis) : g_.axis;
      if (g_.inner == 1) return SoftmaxRow(src, dst, g_.axis, length, inv_t);
      SoftmaxLengthLane(src, dst, g_.axis, g_.inner, length, inv_t);
    });
  }

 private:
  SoftmaxGeometry g_;
};

KernelBuild BuildSoftmax(const KernelRequest& req) {
  const Shape& x = req.inputs[0].type.shape;
  const SoftmaxGeometry g = ResolveSoftmax(req.attrs, x);
  KernelBuild build;
  AddRuntimeInput(build, 0, PlainDesc(x));
  if (g.use_length) AddRuntimeInput(build, 1, PlainDesc(req.inputs[1].type.shape));
  AddOutput(build, PlainDesc(x));
  build.kernel = std::make_unique<SoftmaxKernel>(g);
  return build;
}

const CpuKernelRegistrar kRegister({"softmax", "SoftmaxActivation", "SoftmaxOutput"}, BuildSoftmax);

}  // namespace
}  // namespace qv::cpu
