// transpose, slice, slice_axis and slice_like as one strided gather over row-major data: output element i reads
// the input at offset + sum_d coord_d(i) * stride_d, where a stride may be negative (a reversed slice)
// or permuted (a transpose).
#include <vector>

#include "backends/cpu/dnnl_kernel.h"
#include "ops/shape_ops.h"
#include "scheduler/compute_pool.h"

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

std::vector<int64_t> RowMajorStrides(const Shape& s) {
  std::vector<int64_t> strides(s.size(), 1);
  for (int d = static_cast<int>(s.size()) - 2; d >= 0; --d) strides[d] = strides[d + 1] * s[d + 1];
  return strides;
}

KernelBuild Finish(const Shape& in, const Shape& out, std::vector<int64_t> strides, int64_t offset) {
  KernelBuild build;
  build.runtime_inputs = {0};
  build.input_descs = {PlainDesc(in)};
  build.output_descs = {PlainDesc(out)};
  build.kernel = std::make_unique<GatherKernel>(out, std::move(strides), offset);
  return build;
}

KernelBuild BuildTranspose(const KernelRequest& req) {
  const Shape& in = req.inputs[0].type.shape;
  const std::vector<int64_t> in_strides = RowMajorStrides(in);
  std::vector<int64_t> strides;
  for (int64_t a : TransposeAxes(req.attrs, in.size())) strides.push_back(in_strides[a]);
  return Finish(in, req.outputs[0].shape, std::move(strides), 0);
}

KernelBuild BuildSlice(const KernelRequest& req) {
  const Shape& in = req.inputs[0].type.shape;
  // slice_like reads only the shape of its second input.
  const SliceWindow w = req.attrs.op() == "slice_like" ? ResolveSliceLike(req.attrs, in, req.inputs[1].type.shape)
                                                      : ResolveSlice(req.attrs, in);
  const std::vector<int64_t> in_strides = RowMajorStrides(in);
  std::vector<int64_t> strides;
  int64_t offset = 0;
  for (size_t d = 0; d < in.size(); ++d) {
    offset += w.begin[d] * in_strides[d];
    strides.push_back(w.step[d] * in_strides[d]);
  }
  return Finish(in, w.out, std::move(strides), offset);
}

const CpuKernelRegistrar kTranspose({"transpose"}, BuildTranspose);
const CpuKernelRegistrar kSlice({"slice", "slice_axis", "slice_like"}, BuildSlice);

}  // namespace
}  // namespace qv::cpu
