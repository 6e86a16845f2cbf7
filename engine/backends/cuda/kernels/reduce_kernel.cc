// sum, mean, max, min and prod over axes (ops/reduce.h) on row-major data.
#include "backends/cuda/device/device_kernels.h"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "common/error.h"
#include "ops/op_families.h"
#include "ops/reduce.h"

namespace qv::cuda {
namespace {

class ReduceKernel : public CudaKernel {
 public:
  ReduceKernel(launch::ReduceFn fn, const launch::ReduceGeometry& g, int64_t n) : fn_(fn), g_(g), n_(n) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    launch::Reduce(fn_, g_, static_cast<const float*>(args.inputs[0]), static_cast<float*>(args.outputs[0]), n_,
                   on.stream);
    CheckLaunch("a reduction kernel");
  }

 private:
  launch::ReduceFn fn_;
  launch::ReduceGeometry g_;
  int64_t n_;
};

launch::ReduceFn FnOf(ReduceKind kind) {
  switch (kind) {
    case ReduceKind::kSum: return launch::ReduceFn::kSum;
    case ReduceKind::kMean: return launch::ReduceFn::kMean;
    case ReduceKind::kMax: return launch::ReduceFn::kMax;
    case ReduceKind::kMin: return launch::ReduceFn::kMin;
    case ReduceKind::kProd: return launch::ReduceFn::kProd;
  }
  return launch::ReduceFn::kSum;
}

KernelBuild BuildReduce(const KernelRequest& req, DeviceConstantStore&) {
  const Shape& x = req.inputs[0].type.shape;
  const Shape kept = ReducedKeepingDims(req.attrs, x);
  Check(x.size() <= static_cast<size_t>(launch::kMaxDims), Status::kUnsupported,
        req.attrs.Where() + ShapeToString(x) + " has more than " + std::to_string(launch::kMaxDims) +
            " dimensions, which " + req.device.ToString() + " does not support here");
  launch::ReduceGeometry g;
  int64_t stride = 1;
  std::vector<int64_t> strides(x.size());
  for (int d = static_cast<int>(x.size()) - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= x[d];
  }
  for (size_t d = 0; d < x.size(); ++d) {
    if (kept[d] == x[d] && x[d] != 1) {
      g.kept[g.kept_ndim] = x[d];
      g.kept_stride[g.kept_ndim++] = strides[d];
    } else if (kept[d] != x[d]) {
      g.reduced[g.reduced_ndim] = x[d];
      g.reduced_stride[g.reduced_ndim++] = strides[d];
      g.reduced_count *= x[d];
    }
  }
  return RowMajorBuild(req, {0}, std::make_unique<ReduceKernel>(FnOf(ReduceKindOf(req.attrs.op())), g,
                                                                ElementCount(kept)));
}

const CudaKernelRegistrar kRegister(ReduceOps(), BuildReduce);

}  // namespace
}  // namespace qv::cuda
