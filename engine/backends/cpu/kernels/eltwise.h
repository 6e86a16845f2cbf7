// Element-wise kernels: oneDNN's eltwise primitive (any layout in, the same layout out), and a loop for
// the functions oneDNN lacks.
#pragma once

#include <cstdint>
#include <memory>

#include "backends/cpu/kernels/dnnl_kernel.h"
#include "backends/cpu/runtime/compute_pool.h"

namespace qv::cpu {

// One input, one output, d = f(s; alpha, beta) in the input's own layout.
KernelBuild BuildEltwise(const KernelRequest& req, dnnl::algorithm algorithm, float alpha, float beta);

// y[i] = f(x[i]) over n floats.
template <typename F>
class ElementwiseLoopKernel : public Kernel {
 public:
  ElementwiseLoopKernel(F f, int64_t n) : f_(f), n_(n) {}
  void Execute(const ExecArgs& args) const override {
    const float* x = static_cast<const float*>(args.inputs[0]);
    float* y = static_cast<float*>(args.outputs[0]);
    ParallelFor(args.threads, n_, [&](int64_t i) { y[i] = f_(x[i]); });
  }

 private:
  F f_;
  int64_t n_;
};

// One input, one output, y = f(x) as a float32 loop. A function with f(0) = 0 runs in the input's own
// layout when that holds float32 (a blocked layout's zero padding stays zero); any other runs on
// row-major float32 data (a bfloat16 input is converted first).
template <typename F>
KernelBuild BuildElementwiseLoop(const KernelRequest& req, F f, bool keeps_zero) {
  const Desc& in = DescOf(req.inputs[0]);
  const bool own_layout = keeps_zero && in.get_data_type() == dnnl::memory::data_type::f32;
  const Desc data = own_layout ? in : PlainDesc(req.inputs[0].type.shape);
  KernelBuild build;
  AddRuntimeInput(build, 0, data);
  AddOutput(build, data);
  build.kernel = std::make_unique<ElementwiseLoopKernel<F>>(f, static_cast<int64_t>(data.get_size() / sizeof(float)));
  return build;
}

}  // namespace qv::cpu
