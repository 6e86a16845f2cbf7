// _contrib_box_decode on the backend's own kernel (box_decode.cu), a thread per box.
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/device/device_kernels.h"
#include "ops/detection.h"

namespace qv::cuda {
namespace {

class BoxDecodeKernel : public CudaKernel {
 public:
  explicit BoxDecodeKernel(const launch::BoxDecodeGeometry& g) : g_(g) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    launch::BoxDecode(g_, static_cast<const float*>(args.inputs[0]), static_cast<const float*>(args.inputs[1]),
                      static_cast<float*>(args.outputs[0]), on.stream);
    CheckLaunch("the box_decode kernel");
  }

 private:
  launch::BoxDecodeGeometry g_;
};

KernelBuild BuildBoxDecode(const KernelRequest& req, DeviceConstantStore&) {
  const BoxDecodeParams p = BoxDecodeParams::Parse(req.attrs);
  const Shape& x = req.inputs[0].type.shape;
  launch::BoxDecodeGeometry g;
  for (int i = 0; i < 4; ++i) g.std[i] = p.std[i];
  g.clip = p.clip;
  g.corner_anchors = p.anchor_format == BoxFormat::kCorner;
  g.batch = x[0];
  g.boxes = x[1];
  // The anchors are often a parameter: the backend then hands the kernel their device copy.
  return RowMajorBuild(req, {0, 1}, std::make_unique<BoxDecodeKernel>(g));
}

const CudaKernelRegistrar kRegister({"_contrib_box_decode"}, BuildBoxDecode);

}  // namespace
}  // namespace qv::cuda
