// 2-D and 3-D pooling (max, avg, sum; global too) on the backend's own kernel, with MXNet's window rules.
// (cuDNN pooling, where it computes the same, comes with the cuDNN step.)
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/device/device_kernels.h"
#include "ops/pooling.h"

namespace qv::cuda {
namespace {

class PoolingKernel : public CudaKernel {
 public:
  explicit PoolingKernel(const launch::PoolGeometry& g) : g_(g) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    launch::Pool(g_, static_cast<const float*>(args.inputs[0]), static_cast<float*>(args.outputs[0]), on.stream);
    CheckLaunch("the pooling kernel");
  }

 private:
  launch::PoolGeometry g_;
};

KernelBuild BuildPooling(const KernelRequest& req, DeviceConstantStore&) {
  auto p = PoolingParams::Parse(req.attrs);
  const Shape& in = req.inputs[0].type.shape;
  const Shape out = p.Resolve(req.attrs, in);
  launch::PoolGeometry g;
  g.type = p.type == PoolingParams::kMax   ? launch::PoolGeometry::kMax
           : p.type == PoolingParams::kAvg ? launch::PoolGeometry::kAvg
                                           : launch::PoolGeometry::kSum;
  g.count_include_pad = p.count_include_pad;
  g.planes = in[0] * in[1];
  const size_t skip = 5 - in.size();  // 2-D: depth 1
  for (size_t i = skip; i < 3; ++i) {
    g.in[i] = in[2 + i - skip];
    g.out[i] = out[2 + i - skip];
    g.kernel[i] = p.kernel[i - skip];
    g.stride[i] = p.stride[i - skip];
    g.pad[i] = p.pad[i - skip];
  }
  return RowMajorBuild(req, {0}, std::make_unique<PoolingKernel>(g));
}

const CudaKernelRegistrar kRegister({"Pooling"}, BuildPooling);

}  // namespace
}  // namespace qv::cuda
