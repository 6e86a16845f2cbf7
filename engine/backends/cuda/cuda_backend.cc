// The CUDA backend behind the Backend interface. It owns GPU memory (arrays live on gpu(N)); it has
// no kernels yet, so a cached op on a GPU is refused at creation, naming the first operator.
#include "backends/backend.h"
#include "backends/cuda/cuda_memory.h"
#include "common/error.h"

namespace qv::cuda {
namespace {

class NoFusions : public FusionRules {
 public:
  bool FusesPostOp(const Node&, const PostOp&) const override { return false; }
  bool FusesSum(const Node&) const override { return false; }
};

class CudaBackend : public Backend {
 public:
  DeviceType device_type() const override { return DeviceType::kGpu; }
  void RequireDevice(const Device& device) const override { memory_.Require(device); }
  const DeviceMemory& memory() const override { return memory_; }

  bool Supports(const std::string&) const override { return false; }
  std::vector<std::string> SupportedOps() const override { return {}; }
  const FusionRules& fusions() const override { return fusions_; }
  Precision ResolvePrecision(Precision requested, const Device& device) const override {
    if (requested == Precision::kFloat32 || requested == Precision::kAuto) return Precision::kFloat32;
    throw Error(Status::kUnsupported, std::string("precision '") + PrecisionName(requested) +
                                          "' is not implemented on " + device.ToString() + " yet");
  }

  std::unique_ptr<ConstantStore> NewConstantStore() const override { Unreachable(); }
  KernelBuild BuildKernel(const KernelRequest&) const override { Unreachable(); }
  LayoutPtr PlainLayout(const TensorType&) const override { Unreachable(); }
  std::unique_ptr<Kernel> MakeConversion(const LayoutPtr&, const LayoutPtr&) const override { Unreachable(); }
  int StepParallelism(double, double) const override { Unreachable(); }
  std::unique_ptr<Execution> StartExecution(const Device&) const override { Unreachable(); }

 private:
  // Plans are compiled only for ops whose every operator the backend supports: none, here.
  [[noreturn]] static void Unreachable() {
    throw Error(Status::kInternal, "the CUDA backend has no kernels: no plan can be compiled for a GPU");
  }

  CudaMemory memory_;
  NoFusions fusions_;
};

const bool kRegistered = [] {
  auto* backend = new CudaBackend;
  RegisterDeviceMemory(DeviceType::kGpu, &backend->memory());
  RegisterBackend(backend);
  return true;
}();

}  // namespace
}  // namespace qv::cuda
