// amp_cast as a rounding loop in the input's own layout (rounding keeps zero, so a blocked layout's
// padding stays zero); amp_multicast as plain copies. Graph passes remove the casts that are
// identities here (to float32, amp_multicast) and fold casts of parameters, so in a compiled plan
// only roundings of computed values reach these kernels.
#include <algorithm>
#include <vector>

#include "backends/cpu/kernels/eltwise.h"
#include "ops/amp_cast.h"

namespace qv::cpu {
namespace {

KernelBuild BuildAmpCast(const KernelRequest& req) {
  switch (ParseAmpCast(req.attrs)) {
    case AmpTarget::kBFloat16: return BuildElementwiseLoop(req, RoundToBFloat16, /*keeps_zero=*/true);
    case AmpTarget::kFloat16: return BuildElementwiseLoop(req, RoundToFloat16, /*keeps_zero=*/true);
    case AmpTarget::kFloat32: break;
  }
  return BuildElementwiseLoop(req, [](float x) { return x; }, /*keeps_zero=*/true);
}

// Output i is input i, each row-major.
class CopyEachKernel : public Kernel {
 public:
  explicit CopyEachKernel(std::vector<int64_t> sizes) : sizes_(std::move(sizes)) {}
  void Execute(const ExecArgs& args) const override {
    for (size_t i = 0; i < sizes_.size(); ++i) {
      const float* x = static_cast<const float*>(args.inputs[i]);
      std::copy(x, x + sizes_[i], static_cast<float*>(args.outputs[i]));
    }
  }

 private:
  std::vector<int64_t> sizes_;
};

KernelBuild BuildAmpMultiCast(const KernelRequest& req) {
  const int n = ParseAmpMultiCast(req.attrs);
  KernelBuild build;
  std::vector<int64_t> sizes;
  for (int i = 0; i < n; ++i) {
    const Shape& shape = req.inputs[static_cast<size_t>(i)].type.shape;
    AddRuntimeInput(build, i, PlainDesc(shape));
    AddOutput(build, PlainDesc(shape));
    sizes.push_back(ElementCount(shape));
  }
  build.kernel = std::make_unique<CopyEachKernel>(std::move(sizes));
  return build;
}

const CpuKernelRegistrar kRegister({"amp_cast"}, BuildAmpCast);
const CpuKernelRegistrar kRegisterMulti({"amp_multicast"}, BuildAmpMultiCast);

}  // namespace
}  // namespace qv::cpu
