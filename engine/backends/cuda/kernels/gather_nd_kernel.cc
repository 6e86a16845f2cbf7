// gather_nd (gather_nd.cu): out-of-range indices give NaN slices, where the CPU fails the run.
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/device/device_kernels.h"
#include "backends/cuda/row_major_layout.h"
#include "ops/gather_nd.h"

namespace qv::cuda {
namespace {

class GatherNDKernel : public CudaKernel {
 public:
  explicit GatherNDKernel(const launch::GatherNDGeometry& g) : g_(g) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    launch::GatherND(g_, static_cast<const float*>(args.inputs[0]), static_cast<const float*>(args.inputs[1]),
                     static_cast<float*>(args.outputs[0]), on.stream);
    CheckLaunch("the gather_nd kernel");
  }

 private:
  launch::GatherNDGeometry g_;
};

KernelBuild BuildGatherND(const KernelRequest& req, DeviceConstantStore&) {
  const GatherNDGeometry r = GatherNDGeometry::Resolve(req.attrs, req.inputs[0].type.shape, req.inputs[1].type.shape);
  launch::GatherNDGeometry g;
  g.m = static_cast<int>(r.dims.size());
  for (int j = 0; j < g.m; ++j) g.dims[j] = r.dims[j], g.strides[j] = r.strides[j];
  g.positions = r.positions, g.slice = r.slice;
  return RowMajorBuild(req, {0, 1}, std::make_unique<GatherNDKernel>(g));
}

const CudaKernelRegistrar kRegister({"gather_nd"}, BuildGatherND);

}  // namespace
}  // namespace qv::cuda
