// transpose, SwapAxis, slice, slice_axis, slice_like, Crop, tile, repeat and the broadcasts (broadcast_axis,
// broadcast_to, broadcast_like) as one strided gather over row-major data
// (ops/shape_ops.h's StridedRead).
#include <vector>

#include "backends/cpu/kernels/dnnl_kernel.h"
#include "ops/shape_ops.h"
#include "backends/cpu/runtime/compute_pool.h"

namespace qv::cpu {
namespace {

class GatherKernel : public Kernel {
 public:
  GatherKernel(Shape out, std::vector<int64_t> strides, int64_t offset)
      : out_(std::move(out)), strides_(std::move(strides)), offset_(offset) {}

  void Execute(const ExecArgs& args) const override {
    const float* x = static_cast<const float*>(args.inputs[0]) + offset_;
    float* y = static_cast<float*>(args.outputs[0]);
    // Rows along the last output axis; each row starts at a computed offset.
    const int ndim = static_cast<int>(out_.size());
    const int64_t row = out_.back(), rows = ElementCount(out_) / row, inner = strides_.back();
    ParallelFor(args.threads, rows, [&](int64_t r) {
      int64_t rest = r, at = 0;
      for (int d = ndim - 2; d >= 0; --d) {
        at += (rest % out_[d]) * strides_[d];
        rest /= out_[d];
      }
      float* dst = y + r * row;
      for (int64_t i = 0; i < row; ++i) dst[i] = x[at + i * inner];
    });
  }

 private:
  Shape out_;
  std::vector<int64_t> strides_;
  int64_t offset_;
};

KernelBuild BuildGather(const KernelRequest& req) {
  std::vector<Shape> shapes;
  for (const auto& in : req.inputs) shapes.push_back(in.type.shape);
  StridedRead read = ResolveStridedRead(req.attrs, shapes);
  KernelBuild build;
  // slice_like, Crop and broadcast_like read only the shape of their second input
  AddRuntimeInput(build, 0, PlainDesc(shapes[0]));
  AddOutput(build, PlainDesc(req.outputs[0].shape));
  build.kernel = std::make_unique<GatherKernel>(read.out, std::move(read.strides), read.offset);
  return build;
}

const CpuKernelRegistrar kRegister({"transpose", "SwapAxis", "reverse", "slice", "slice_axis", "slice_like", "Crop", "tile",
                                    "repeat", "broadcast_axis", "broadcast_to", "broadcast_like"}, BuildGather);

}  // namespace
}  // namespace qv::cpu
