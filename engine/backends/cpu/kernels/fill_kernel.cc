// zeros_like, ones_like, shape_array, _zeros, _ones, _arange and _contrib_arange_like: outputs computed
// from the attributes and shapes alone, written row-major.
#include <vector>

#include "backends/cpu/kernels/dnnl_kernel.h"
#include "ops/fill.h"

namespace qv::cpu {
namespace {

// Copies precomputed values into the output; the values are made once, when the plan is built.
class FillKernel : public Kernel {
 public:
  explicit FillKernel(std::vector<float> values) : values_(std::move(values)) {}
  void Execute(const ExecArgs& args) const override {
    std::copy(values_.begin(), values_.end(), static_cast<float*>(args.outputs[0]));
  }

 private:
  std::vector<float> values_;
};

KernelBuild Finish(const Shape& out, std::vector<float> values) {
  KernelBuild build;
  AddOutput(build, PlainDesc(out));
  build.kernel = std::make_unique<FillKernel>(std::move(values));
  return build;
}

KernelBuild BuildFillLike(const KernelRequest& req) {
  const Shape& out = req.outputs[0].shape;
  const float value = req.attrs.op() == "ones_like" || req.attrs.op() == "_ones" ? 1.f : 0.f;
  return Finish(out, std::vector<float>(ElementCount(out), value));
}

KernelBuild BuildArange(const KernelRequest& req) {
  const ArangeSpec a = ResolveArange(req.attrs);
  std::vector<float> values;
  for (int64_t k = 0; k < a.count; ++k)
    for (int64_t r = 0; r < a.repeat; ++r) values.push_back(static_cast<float>(a.start + k * a.step));
  return Finish(req.outputs[0].shape, std::move(values));
}

KernelBuild BuildArangeLike(const KernelRequest& req) {
  return Finish(req.outputs[0].shape, ArangeLikeValues(req.attrs, req.outputs[0].shape));
}

KernelBuild BuildShapeArray(const KernelRequest& req) {
  return Finish(req.outputs[0].shape, ShapeArrayValues(req.attrs, req.inputs[0].type.shape));
}

const CpuKernelRegistrar kShapeArray({"shape_array"}, BuildShapeArray);
const CpuKernelRegistrar kFillLike({"zeros_like", "ones_like", "_zeros", "_ones"}, BuildFillLike);
const CpuKernelRegistrar kArange({"_arange"}, BuildArange);
const CpuKernelRegistrar kArangeLike({"_contrib_arange_like"}, BuildArangeLike);

}  // namespace
}  // namespace qv::cpu
