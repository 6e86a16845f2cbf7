// transpose, slice, slice_axis and slice_like as one strided gather over row-major data.
#include "backends/cuda/cuda_kernel.h"
#include "backends/cuda/device_kernels.h"
#include "common/error.h"
#include "ops/shape_ops.h"

namespace qv::cuda {
namespace {

class GatherKernel : public CudaKernel {
 public:
  GatherKernel(const launch::GatherGeometry& g, int64_t n) : g_(g), n_(n) {}
  void Enqueue(const ExecArgs& args, cudaStream_t stream) const override {
    launch::Gather(g_, static_cast<const float*>(args.inputs[0]), static_cast<float*>(args.outputs[0]), n_, stream);
    CheckLaunch("a gather kernel");
  }

 private:
  launch::GatherGeometry g_;
  int64_t n_;
};

std::vector<int64_t> RowMajorStrides(const Shape& s) {
  std::vector<int64_t> strides(s.size(), 1);
  for (int d = static_cast<int>(s.size()) - 2; d >= 0; --d) strides[d] = strides[d + 1] * s[d + 1];
  return strides;
}

KernelBuild Finish(const KernelRequest& req, const std::vector<int64_t>& strides, int64_t offset) {
  const Shape& out = req.outputs[0].shape;
  Check(out.size() <= static_cast<size_t>(launch::kMaxDims), Status::kUnsupported,
        req.attrs.Where() + ShapeToString(out) + " has more than " + std::to_string(launch::kMaxDims) +
            " dimensions, which " + req.device.ToString() + " does not support here");
  launch::GatherGeometry g;
  g.ndim = static_cast<int>(out.size());
  g.offset = offset;
  for (size_t d = 0; d < out.size(); ++d) {
    g.out[d] = out[d];
    g.stride[d] = strides[d];
  }
  return RowMajorBuild(req, {0}, std::make_unique<GatherKernel>(g, ElementCount(out)));
}

KernelBuild BuildTranspose(const KernelRequest& req, DeviceConstantStore&) {
  const Shape& in = req.inputs[0].type.shape;
  const std::vector<int64_t> in_strides = RowMajorStrides(in);
  std::vector<int64_t> strides;
  for (int64_t a : TransposeAxes(req.attrs, in.size())) strides.push_back(in_strides[a]);
  return Finish(req, strides, 0);
}

KernelBuild BuildSlice(const KernelRequest& req, DeviceConstantStore&) {
  const Shape& in = req.inputs[0].type.shape;
  // slice_like reads only the shape of its second input, which is therefore no runtime input.
  const SliceWindow w = req.attrs.op() == "slice_like" ? ResolveSliceLike(req.attrs, in, req.inputs[1].type.shape)
                                                      : ResolveSlice(req.attrs, in);
  const std::vector<int64_t> in_strides = RowMajorStrides(in);
  std::vector<int64_t> strides;
  int64_t offset = 0;
  for (size_t d = 0; d < in.size(); ++d) {
    offset += w.begin[d] * in_strides[d];
    strides.push_back(w.step[d] * in_strides[d]);
  }
  return Finish(req, strides, offset);
}

const CudaKernelRegistrar kTranspose({"transpose"}, BuildTranspose);
const CudaKernelRegistrar kSlice({"slice", "slice_axis", "slice_like"}, BuildSlice);

}  // namespace
}  // namespace qv::cuda
