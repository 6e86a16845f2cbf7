// An emulated GPU for testing device handling without one: with QUIVER_EMULATED_GPU=1, a build that has
// no CUDA backend offers gpu(0), whose arrays live in host memory behind a device of their own
// (runtime/host_backed_memory.h) and whose invocations run the CPU backend's kernels, then complete on
// a thread of the device's (runtime/completion_thread.h), through the engine's asynchronous path as a
// GPU's stream does. So the bindings, the server and the C API meet a non-CPU device's rules (results
// read by copy, host inputs staged, completion off the caller's thread) on every CI run.
#include <cstdlib>
#include <cstring>

#include "backends/backend.h"
#include "backends/emulated_gpu/runtime/completion_thread.h"
#include "backends/emulated_gpu/runtime/host_backed_memory.h"

namespace qv::emulated_gpu {
namespace {

const Backend& Cpu() { return FindBackend(Device{}); }

// The CPU's execution, whose completion is reported later on the device's completion thread.
class EmulatedExecution : public Execution {
 public:
  EmulatedExecution() : cpu_(Cpu().StartExecution(Device{})) {}

  void Run(const Kernel& kernel, ExecArgs& args, int parallelism, const std::string& node) override {
    cpu_->Run(kernel, args, parallelism, node);
  }
  void Finish() override { cpu_->Finish(); }
  void FinishAsync(Done done) override {
    std::exception_ptr failure;
    try {
      cpu_->Finish();
    } catch (...) {
      failure = std::current_exception();
    }
    CompletionThread::Get().Post([done = std::move(done), failure] { done(failure); });
  }

 private:
  std::unique_ptr<Execution> cpu_;
};

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

  std::unique_ptr<Execution> StartExecution(const Device&) const override {
    return std::make_unique<EmulatedExecution>();
  }
  bool completes_asynchronously() const override { return true; }

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
