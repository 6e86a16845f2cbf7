// GroupNorm as a loop over the (sample, group) blocks, spread over the threads. Not oneDNN's group
// normalization: the oneDNN that scripts/build_onednn.sh builds leaves that primitive out.
#include <cmath>

#include "backends/cpu/runtime/constant_cache.h"
#include "backends/cpu/kernels/dnnl_kernel.h"
#include "ops/group_norm.h"
#include "backends/cpu/runtime/compute_pool.h"

namespace qv::cpu {
namespace {

class GroupNormKernel : public Kernel {
 public:
  GroupNormKernel(const GroupNormGeometry& g, std::shared_ptr<void> gamma, std::shared_ptr<void> beta)
      : g_(g), gamma_(std::move(gamma)), beta_(std::move(beta)) {}

  void Execute(const ExecArgs& args) const override {
    const float* x = static_cast<const float*>(args.inputs[0]);
    float* y = static_cast<float*>(args.outputs[0]);
    const float* gamma = static_cast<const float*>(gamma_.get());
    const float* beta = static_cast<const float*>(beta_.get());
    const int64_t size = g_.group_size;
    ParallelFor(args.threads, g_.batch * g_.groups, [&](int64_t index) {
      const float* in = x + index * size;
      float* out = y + index * size;
      double sum = 0;
      for (int64_t i = 0; i < size; ++i) sum += in[i];
      const float mean = static_cast<float>(sum / size);
      double squares = 0;
      for (int64_t i = 0; i < size; ++i) {
        const float d = in[i] - mean;
        squares += static_cast<double>(d) * d;
      }
      const float std_dev = static_cast<float>(std::sqrt(squares / size + g_.eps));
      const float scale = gamma[index % g_.groups] / std_dev, shift = beta[index % g_.groups];
      for (int64_t i = 0; i < size; ++i) out[i] = (in[i] - mean) * scale + shift;
    });
  }

 private:
  GroupNormGeometry g_;
  std::shared_ptr<void> gamma_, beta_;
};

KernelBuild BuildGroupNorm(const KernelRequest& req) {
  const Shape& shape = req.inputs[0].type.shape;
  const GroupNormGeometry g = ResolveGroupNorm(req.attrs, shape);
  for (int i = 1; i < 3; ++i)
    Check(req.inputs[i].constant != nullptr, Status::kUnsupported,
          req.attrs.Where() + "gamma and beta must be parameters");
  const Desc vec({g.groups}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a);
  KernelBuild build;
  AddRuntimeInput(build, 0, PlainDesc(shape));
  AddOutput(build, PlainDesc(shape));
  ConstantCache& constants = CpuConstants(req);
  build.kernel = std::make_unique<GroupNormKernel>(g, constants.Get(req.inputs[1].constant, vec, vec),
                                                   constants.Get(req.inputs[2].constant, vec, vec));
  return build;
}

const CpuKernelRegistrar kRegister({"GroupNorm"}, BuildGroupNorm);

}  // namespace
}  // namespace qv::cpu
