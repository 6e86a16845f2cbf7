// MXNet's AMP casts in float32 storage (ops/amp_cast.h): amp_cast to bfloat16 or float16 rounds on the
// device (amp_cast.cu), bit for bit as the CPU; amp_cast to float32 and amp_multicast copy. The graph
// passes remove those identities and fold casts of parameters before a plan is built, so only
// roundings of computed values normally reach these kernels.
#include <vector>

#include "backends/cuda/runtime/cuda_error.h"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/kernels/device_copy_kernel.h"
#include "backends/cuda/device/device_kernels.h"
#include "backends/cuda/row_major_layout.h"
#include "ops/amp_cast.h"

namespace qv::cuda {
namespace {

class RoundKernel : public CudaKernel {
 public:
  RoundKernel(launch::NarrowFloat target, int64_t n) : target_(target), n_(n) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    launch::RoundTo(target_, static_cast<const float*>(args.inputs[0]), static_cast<float*>(args.outputs[0]), n_,
                    on.stream);
    CheckLaunch("the amp_cast rounding kernel");
  }

 private:
  launch::NarrowFloat target_;
  int64_t n_;
};

// Output i is a copy of input i.
class CopyEachKernel : public CudaKernel {
 public:
  explicit CopyEachKernel(std::vector<size_t> bytes) : bytes_(std::move(bytes)) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    for (size_t i = 0; i < bytes_.size(); ++i) {
      if (bytes_[i] == 0 || args.outputs[i] == args.inputs[i]) continue;
      // cudaMemcpyDefault: an input may be a parameter still in host memory.
      CheckCuda(cudaMemcpyAsync(args.outputs[i], args.inputs[i], bytes_[i], cudaMemcpyDefault, on.stream),
                "copying amp_multicast's input " + std::to_string(i));
    }
  }

 private:
  std::vector<size_t> bytes_;
};

KernelBuild BuildAmpCast(const KernelRequest& req, DeviceConstantStore&) {
  const int64_t n = ElementCount(req.outputs[0].shape);
  switch (ParseAmpCast(req.attrs)) {
    case AmpTarget::kBFloat16:
      return RowMajorBuild(req, {0}, std::make_unique<RoundKernel>(launch::NarrowFloat::kBFloat16, n));
    case AmpTarget::kFloat16:
      return RowMajorBuild(req, {0}, std::make_unique<RoundKernel>(launch::NarrowFloat::kFloat16, n));
    case AmpTarget::kFloat32: break;
  }
  return RowMajorBuild(req, {0}, MakeDeviceCopy(RowMajorBytes(req.outputs[0])));
}

KernelBuild BuildAmpMultiCast(const KernelRequest& req, DeviceConstantStore&) {
  const int n = ParseAmpMultiCast(req.attrs);
  std::vector<int> inputs;
  std::vector<size_t> bytes;
  for (int i = 0; i < n; ++i) {
    inputs.push_back(i);
    bytes.push_back(RowMajorBytes(req.inputs[static_cast<size_t>(i)].type));
  }
  return RowMajorBuild(req, std::move(inputs), std::make_unique<CopyEachKernel>(std::move(bytes)));
}

const CudaKernelRegistrar kRegister({"amp_cast"}, BuildAmpCast);
const CudaKernelRegistrar kRegisterMulti({"amp_multicast"}, BuildAmpMultiCast);

}  // namespace
}  // namespace qv::cuda
