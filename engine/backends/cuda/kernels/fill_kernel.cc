// zeros_like, ones_like, shape_array, _zeros, _ones, _arange and _contrib_arange_like: values that depend
// on the attributes and shapes alone, made on the host and uploaded once per node when the plan is built;
// a run copies them into the output.
#include <string>
#include <vector>

#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/kernels/device_copy_kernel.h"
#include "backends/cuda/runtime/device_constants.h"
#include "backends/cuda/row_major_layout.h"
#include "ops/fill.h"

namespace qv::cuda {
namespace {

KernelBuild Finish(const KernelRequest& req, DeviceConstantStore& constants,
                   const std::function<std::vector<float>()>& make) {
  const Shape& out = req.outputs[0].shape;
  // Keyed by the shapes too: plans for other input shapes need other values (shape_array's output shape
  // alone does not tell them apart).
  std::string key = req.attrs.node() + "/values" + ShapeToString(out);
  for (const auto& in : req.inputs) key += ShapeToString(in.type.shape);
  auto values = constants.GetDerived(key, req.device, make);
  const size_t bytes = RowMajorBytes(req.outputs[0]);
  return RowMajorBuild(req, {}, MakeConstantCopy(std::move(values), bytes));
}

KernelBuild BuildFillLike(const KernelRequest& req, DeviceConstantStore& constants) {
  const float value = req.attrs.op() == "ones_like" || req.attrs.op() == "_ones" ? 1.f : 0.f;
  const int64_t n = ElementCount(req.outputs[0].shape);
  return Finish(req, constants, [=] { return std::vector<float>(static_cast<size_t>(n), value); });
}

KernelBuild BuildArange(const KernelRequest& req, DeviceConstantStore& constants) {
  const ArangeSpec a = ResolveArange(req.attrs);
  return Finish(req, constants, [a] {
    std::vector<float> values;
    for (int64_t k = 0; k < a.count; ++k)
      for (int64_t r = 0; r < a.repeat; ++r) values.push_back(static_cast<float>(a.start + k * a.step));
    return values;
  });
}

KernelBuild BuildArangeLike(const KernelRequest& req, DeviceConstantStore& constants) {
  const Attrs& attrs = req.attrs;
  const Shape out = req.outputs[0].shape;
  return Finish(req, constants, [&attrs, out] { return ArangeLikeValues(attrs, out); });
}

KernelBuild BuildShapeArray(const KernelRequest& req, DeviceConstantStore& constants) {
  const Attrs& attrs = req.attrs;
  const Shape in = req.inputs[0].type.shape;
  return Finish(req, constants, [&attrs, in] { return ShapeArrayValues(attrs, in); });
}

const CudaKernelRegistrar kShapeArray({"shape_array"}, BuildShapeArray);
const CudaKernelRegistrar kFillLike({"zeros_like", "ones_like", "_zeros", "_ones"}, BuildFillLike);
const CudaKernelRegistrar kArange({"_arange"}, BuildArange);
const CudaKernelRegistrar kArangeLike({"_contrib_arange_like"}, BuildArangeLike);

}  // namespace
}  // namespace qv::cuda
