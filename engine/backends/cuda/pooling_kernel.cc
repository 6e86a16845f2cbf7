// Pooling (max, avg, sum; global too) on the backend's own kernel, with MXNet's window rules.
// (cuDNN pooling, where it computes the same, comes with the cuDNN step.)
#include "backends/cuda/cuda_kernel.h"
#include "backends/cuda/device_kernels.h"
#include "common/error.h"
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
  Check(in.size() == 4 && p.kernel.size() == 2, Status::kUnsupported,
        req.attrs.Where() + "only 2-D pooling of NCHW data is supported on " + req.device.ToString() + ", got " +
            ShapeToString(in));
  launch::PoolGeometry g;
  g.type = p.type == PoolingParams::kMax   ? launch::PoolGeometry::kMax
           : p.type == PoolingParams::kAvg ? launch::PoolGeometry::kAvg
                                           : launch::PoolGeometry::kSum;
  g.count_include_pad = p.count_include_pad;
  g.planes = in[0] * in[1];
  g.h = in[2];
  g.w = in[3];
  g.oh = out[2];
  g.ow = out[3];
  g.kh = p.kernel[0];
  g.kw = p.kernel[1];
  g.sh = p.stride[0];
  g.sw = p.stride[1];
  g.ph = p.pad[0];
  g.pw = p.pad[1];
  return RowMajorBuild(req, {0}, std::make_unique<PoolingKernel>(g));
}

const CudaKernelRegistrar kRegister({"Pooling"}, BuildPooling);

}  // namespace
}  // namespace qv::cuda
