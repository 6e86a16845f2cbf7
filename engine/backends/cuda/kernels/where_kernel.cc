// where(condition, x, y) on the element-wise kernel: the condition has x's shape, or is 1-D and picks
// whole rows (ops/where.cc).
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/device/device_kernels.h"

namespace qv::cuda {
namespace {

class WhereKernel : public CudaKernel {
 public:
  WhereKernel(int64_t n, int64_t row) : n_(n), row_(row) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    launch::Where(static_cast<const float*>(args.inputs[0]), static_cast<const float*>(args.inputs[1]),
                  static_cast<const float*>(args.inputs[2]), static_cast<float*>(args.outputs[0]), n_, row_, on.stream);
    CheckLaunch("the where kernel");
  }

 private:
  int64_t n_, row_;
};

KernelBuild BuildWhere(const KernelRequest& req, DeviceConstantStore&) {
  const int64_t n = ElementCount(req.inputs[1].type.shape);
  const int64_t conditions = ElementCount(req.inputs[0].type.shape);
  return RowMajorBuild(req, {0, 1, 2}, std::make_unique<WhereKernel>(n, conditions > 0 ? n / conditions : 1));
}

const CudaKernelRegistrar kRegister({"where"}, BuildWhere);

}  // namespace
}  // namespace qv::cuda
