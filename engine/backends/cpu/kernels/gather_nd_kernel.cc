// gather_nd: one slice copied per index position. As MXNet's CPU kernel, an index out of range fails
// the run, naming the axis, before anything is copied.
#include <algorithm>
#include <string>

#include "backends/cpu/kernels/dnnl_kernel.h"
#include "common/error.h"
#include "ops/gather_nd.h"
#include "backends/cpu/runtime/compute_pool.h"

namespace qv::cpu {
namespace {

class GatherNDKernel : public Kernel {
 public:
  GatherNDKernel(GatherNDGeometry g, std::string where) : g_(std::move(g)), where_(std::move(where)) {}
  void Execute(const ExecArgs& args) const override {
    const float* data = static_cast<const float*>(args.inputs[0]);
    const float* indices = static_cast<const float*>(args.inputs[1]);
    float* out = static_cast<float*>(args.outputs[0]);
    const int64_t m = static_cast<int64_t>(g_.dims.size());
    for (int64_t j = 0; j < m; ++j)
      for (int64_t y = 0; y < g_.positions; ++y) {
        const float v = indices[j * g_.positions + y];
        Check(GatherNDCoordinate(v, g_.dims[j]) >= 0, Status::kInvalidArgument,
              where_ + "index " + std::to_string(v) + " is out of bounds for axis " + std::to_string(j) +
                  " of size " + std::to_string(g_.dims[j]));
      }
    ParallelFor(args.threads, g_.positions, [&](int64_t y) {
      int64_t at = 0;
      for (int64_t j = 0; j < m; ++j) at += g_.strides[j] * GatherNDCoordinate(indices[j * g_.positions + y], g_.dims[j]);
      std::copy(data + at, data + at + g_.slice, out + y * g_.slice);
    });
  }

 private:
  GatherNDGeometry g_;
  std::string where_;
};

KernelBuild BuildGatherND(const KernelRequest& req) {
  const Shape& data = req.inputs[0].type.shape;
  const Shape& indices = req.inputs[1].type.shape;
  KernelBuild build;
  AddRuntimeInput(build, 0, PlainDesc(data));
  AddRuntimeInput(build, 1, PlainDesc(indices));
  AddOutput(build, PlainDesc(req.outputs[0].shape));
  build.kernel = std::make_unique<GatherNDKernel>(GatherNDGeometry::Resolve(req.attrs, data, indices), req.attrs.Where());
  return build;
}

const CpuKernelRegistrar kRegister({"gather_nd"}, BuildGatherND);

}  // namespace
}  // namespace qv::cpu
