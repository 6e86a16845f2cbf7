// A CPU kernel that runs a plain loop over row-major inputs and outputs: the transformer operators
// (ops/transformer_math.h) compute each output element or lane with the same functions as CUDA.
#pragma once

#include <functional>
#include <vector>

#include "backends/cpu/kernels/dnnl_kernel.h"
#include "backends/cpu/runtime/compute_pool.h"

namespace qv::cpu {

// body(inputs, outputs, i) for i in [0, count), spread over the invocation's threads.
using LoopBody = std::function<void(const std::vector<const float*>& in, float* out, int64_t i)>;

class PlainLoopKernel : public Kernel {
 public:
  PlainLoopKernel(int64_t count, LoopBody body) : count_(count), body_(std::move(body)) {}
  void Execute(const ExecArgs& args) const override {
    std::vector<const float*> in;
    for (const void* p : args.inputs) in.push_back(static_cast<const float*>(p));
    float* out = static_cast<float*>(args.outputs[0]);
    ParallelFor(args.threads, count_, [&](int64_t i) { body_(in, out, i); });
  }

 private:
  int64_t count_;
  LoopBody body_;
};

// PlainIO with a PlainLoopKernel running `body` `count` times.
inline KernelBuild BuildPlainLoop(const KernelRequest& req, int64_t count, LoopBody body) {
  KernelBuild build = PlainIO(req);
  build.kernel = std::make_unique<PlainLoopKernel>(count, std::move(body));
  return build;
}

}  // namespace qv::cpu
