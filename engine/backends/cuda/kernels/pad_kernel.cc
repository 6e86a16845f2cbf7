// Pad on CUDA: one element-parallel launch (pad.cu).
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/device/device_kernels.h"
#include "ops/pad.h"

namespace qv::cuda {
namespace {

class PadKernel : public CudaKernel {
 public:
  PadKernel(const launch::PadGeometry& g, int64_t n) : g_(g), n_(n) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    launch::Pad(g_, static_cast<const float*>(args.inputs[0]), static_cast<float*>(args.outputs[0]), n_, on.stream);
    CheckLaunch("the pad kernel");
  }

 private:
  launch::PadGeometry g_;
  int64_t n_;
};

KernelBuild BuildPad(const KernelRequest& req, DeviceConstantStore&) {
  const auto p = PadParams::Parse(req.attrs);
  const Shape& in = req.inputs[0].type.shape;
  const Shape& out = req.outputs[0].shape;
  launch::PadGeometry g;
  g.mode = p.mode == PadParams::kConstant ? launch::PadGeometry::kConstant
           : p.mode == PadParams::kEdge   ? launch::PadGeometry::kEdge
                                          : launch::PadGeometry::kReflect;
  g.ndim = static_cast<int>(in.size());  // 4 or 5 (PadParams::Resolve)
  g.value = p.constant_value;
  for (size_t d = 0; d < in.size(); ++d) {
    g.in[d] = in[d];
    g.out[d] = out[d];
    g.before[d] = p.pad_width[2 * d];
  }
  return RowMajorBuild(req, {0}, std::make_unique<PadKernel>(g, ElementCount(out)));
}

const CudaKernelRegistrar kRegister({"Pad"}, BuildPad);

}  // namespace
}  // namespace qv::cuda
