// An emulated GPU for testing device handling without one: with QUIVER_EMULATED_GPU=1, a build that has
// no CUDA backend offers gpu(0), whose arrays live in host memory behind a device of its own
// (runtime/host_backed_memory.h) and whose invocations run the CPU backend's kernels on the engine's
// workers. So the bindings, the server and the C API meet a non-CPU device's rules (results read by
// copy, host inputs staged, device pointers wrapped and handed out) on every CI run. Asynchronous
// completion, a GPU's other difference, is not emulated here: kernels run where the CPU's do (a device
// thread would run them on threads whose oneDNN state outlives them); tests/support/late_backend.h
// covers it for the engine.
#include <cstdlib>
#include <cstring>

#include "backends/backend.h"
#include "backends/emulated_gpu/runtime/host_backed_memory.h"

namespace qv::emulated_gpu {
namespace {

const Backend& Cpu() { return FindBackend(Device{}); }

class EmulatedGpuBackend : public Backend {
 public:
  DeviceType device_type() const override { return DeviceType::kGpu; }
  void RequireDevice(const Device& device) const override { memory_.Require(device); }
  const DeviceMemory& memory() const override { return memory_; }

  bool Supports(const std::string& op) const override { return Cpu().Supports(op); }
  std::vector<std::string> SupportedOps() const override { return Cpu().SupportedOps(); }
  const FusionRules& fusions() const override { return Cpu().fusions(); }
  Precision ResolvePrecision(Precision requested, const Device&) const override {
    return Cpu().ResolvePrecision(requested, Device{});
  }

  std::unique_ptr<ConstantStore> NewConstantStore() const override { return Cpu().NewConstantStore(); }
  KernelBuild BuildKernel(const KernelRequest& request) const override {
    return Cpu().BuildKernel(
        {request.attrs, request.constants, request.inputs, request.outputs, request.precision, Device{}});
  }
  LayoutPtr PlainLayout(const TensorType& type) const override { return Cpu().PlainLayout(type); }
  std::unique_ptr<Kernel> MakeConversion(const LayoutPtr& from, const LayoutPtr& to) const override {
    return Cpu().MakeConversion(from, to);
  }
  int StepParallelism(double flops, double bytes) const override { return Cpu().StepParallelism(flops, bytes); }
  // As the CUDA backend's, so that a less aligned device pointer takes the same path here as there.
  size_t in_place_alignment() const override { return 64; }

  std::unique_ptr<Execution> StartExecution(const Device&) const override { return Cpu().StartExecution(Device{}); }

 private:
  HostBackedMemory memory_;
};

bool Requested() {
  const char* value = std::getenv("QUIVER_EMULATED_GPU");
  return value != nullptr && std::strcmp(value, "1") == 0;
}

const bool kRegistered = Requested() && (RegisterBackend(new EmulatedGpuBackend), true);

}  // namespace
}  // namespace qv::emulated_gpu
