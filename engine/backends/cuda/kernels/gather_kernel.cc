// transpose, SwapAxis, slice, slice_axis, slice_like, Crop, tile, repeat and the broadcasts (broadcast_axis,
// broadcast_to, broadcast_like) as one strided gather over row-major data
// (ops/shape_ops.h's StridedRead).
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/device/device_kernels.h"
#include "common/error.h"
#include "ops/shape_ops.h"

namespace qv::cuda {
namespace {

class GatherKernel : public CudaKernel {
 public:
  GatherKernel(const launch::GatherGeometry& g, int64_t n) : g_(g), n_(n) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    launch::Gather(g_, static_cast<const float*>(args.inputs[0]), static_cast<float*>(args.outputs[0]), n_, on.stream);
    CheckLaunch("a gather kernel");
  }

 private:
  launch::GatherGeometry g_;
  int64_t n_;
};

KernelBuild BuildGather(const KernelRequest& req, DeviceConstantStore&) {
  std::vector<Shape> shapes;
  for (const auto& in : req.inputs) shapes.push_back(in.type.shape);
  const StridedRead read = ResolveStridedRead(req.attrs, shapes);
  Check(read.out.size() <= static_cast<size_t>(launch::kMaxDims), Status::kUnsupported,
        req.attrs.Where() + ShapeToString(read.out) + " has more than " + std::to_string(launch::kMaxDims) +
            " dimensions, which " + req.device.ToString() + " does not support here");
  launch::GatherGeometry g;
  g.ndim = static_cast<int>(read.out.size());
  g.offset = read.offset;
  for (size_t d = 0; d < read.out.size(); ++d) {
    g.out[d] = read.out[d];
    g.stride[d] = read.strides[d];
  }
  // slice_like, Crop and broadcast_like read only the shape of their second input, which is therefore no runtime input.
  return RowMajorBuild(req, {0}, std::make_unique<GatherKernel>(g, ElementCount(read.out)));
}

const CudaKernelRegistrar kRegister({"transpose", "SwapAxis", "reverse", "slice", "slice_axis", "slice_like", "Crop", "tile",
                                     "repeat", "broadcast_axis", "broadcast_to", "broadcast_like"}, BuildGather);

}  // namespace
}  // namespace qv::cuda
