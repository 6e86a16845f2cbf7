// _contrib_AdaptiveAvgPooling2D and _contrib_BilinearResize2D on the backend's own kernels (resize.cu).
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/device/device_kernels.h"
#include "ops/adaptive_avg_pooling.h"
#include "ops/bilinear_resize.h"

namespace qv::cuda {
namespace {

class AdaptiveAvgPoolKernel : public CudaKernel {
 public:
  explicit AdaptiveAvgPoolKernel(const launch::AdaptivePoolGeometry& g) : g_(g) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    launch::AdaptiveAvgPool(g_, static_cast<const float*>(args.inputs[0]), static_cast<float*>(args.outputs[0]),
                            on.stream);
    CheckLaunch("the adaptive average pooling kernel");
  }

 private:
  launch::AdaptivePoolGeometry g_;
};

class BilinearResizeKernel : public CudaKernel {
 public:
  explicit BilinearResizeKernel(const launch::BilinearResizeGeometry& g) : g_(g) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    launch::BilinearResize(g_, static_cast<const float*>(args.inputs[0]), static_cast<float*>(args.outputs[0]),
                           on.stream);
    CheckLaunch("the bilinear resize kernel");
  }

 private:
  launch::BilinearResizeGeometry g_;
};

KernelBuild BuildAdaptiveAvgPool(const KernelRequest& req, DeviceConstantStore&) {
  const AdaptivePoolGeometry a = ResolveAdaptiveAvgPool(req.attrs, req.inputs[0].type.shape);
  launch::AdaptivePoolGeometry g;
  g.planes = a.planes;
  g.h = a.h;
  g.w = a.w;
  g.oh = a.oh;
  g.ow = a.ow;
  return RowMajorBuild(req, {0}, std::make_unique<AdaptiveAvgPoolKernel>(g));
}

KernelBuild BuildBilinearResize(const KernelRequest& req, DeviceConstantStore&) {
  std::vector<Shape> shapes;
  for (const auto& in : req.inputs) shapes.push_back(in.type.shape);
  const BilinearResizeGeometry b = ResolveBilinearResize(req.attrs, shapes);
  launch::BilinearResizeGeometry g;
  g.planes = b.planes;
  g.h = b.h;
  g.w = b.w;
  g.oh = b.oh;
  g.ow = b.ow;
  g.align_corners = b.align_corners;
  g.scale_h = BilinearScale(b.h, b.oh, b.align_corners);
  g.scale_w = BilinearScale(b.w, b.ow, b.align_corners);
  return RowMajorBuild(req, {0}, std::make_unique<BilinearResizeKernel>(g));  // 'like' gives only its shape
}

const CudaKernelRegistrar kRegisterPool({"_contrib_AdaptiveAvgPooling2D"}, BuildAdaptiveAvgPool);
const CudaKernelRegistrar kRegisterResize({"_contrib_BilinearResize2D"}, BuildBilinearResize);

}  // namespace
}  // namespace qv::cuda
