// The CUDA backend behind the Backend interface: GPU memory from per-device pools, row-major float32
// tensors on the device, kernels from cuBLASLt and the backend's own CUDA code (kernel_registry.cc
// lists them), parameters uploaded once per device, and each invocation's steps on one stream.
#include "backends/backend.h"
#include "backends/cuda/kernels/convolution_kernel.h"
#include "backends/cuda/runtime/cuda_execution.h"
#include "backends/cuda/runtime/cuda_graph_replay.h"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/runtime/cuda_memory.h"
#include "backends/cuda/runtime/device_constants.h"
#include "backends/cuda/kernels/device_copy_kernel.h"
#include "backends/cuda/row_major_layout.h"
#include "common/error.h"

namespace qv::cuda {
namespace {

// cuBLASLt's epilogue applies a ReLU after FullyConnected's bias; the BatchNorm kernel ends with one;
// a cuDNN convolution adds a residual, then applies a ReLU or a clip from 0 (convolution_kernel.h).
class CudaFusionRules : public FusionRules {
 public:
  bool FusesPostOp(const Node& producer, const PostOp& post) const override {
    if (producer.op == "Convolution") return ConvolutionFusesPostOp(producer, post);
    return (producer.op == "FullyConnected" || producer.op == "BatchNorm") && producer.post_ops.empty() &&
           post.kind == PostOp::kRelu;
  }
  bool FusesSum(const Node& producer) const override { return ConvolutionFusesSum(producer); }
};

// A kernel some of whose runtime inputs are parameters still in host memory (a binary operator with
// a constant operand): the plan hands it their host bytes, so it reads the device copies instead.
class DeviceConstantInputs : public CudaKernel {
 public:
  DeviceConstantInputs(std::unique_ptr<CudaKernel> inner, std::vector<std::pair<size_t, std::shared_ptr<const void>>> swaps)
      : inner_(std::move(inner)), swaps_(std::move(swaps)) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    ExecArgs swapped = args;
    for (const auto& [index, data] : swaps_) swapped.inputs[index] = const_cast<void*>(data.get());
    inner_->Enqueue(swapped, on);
  }

 private:
  std::unique_ptr<CudaKernel> inner_;
  std::vector<std::pair<size_t, std::shared_ptr<const void>>> swaps_;
};

class CudaBackend : public Backend {
 public:
  DeviceType device_type() const override { return DeviceType::kGpu; }
  void RequireDevice(const Device& device) const override { memory_.Require(device); }
  const DeviceMemory& memory() const override { return memory_; }

  bool Supports(const std::string& op) const override { return FindCudaKernel(op) != nullptr; }
  std::vector<std::string> SupportedOps() const override { return ListCudaKernels(); }
  const FusionRules& fusions() const override { return fusions_; }
  Precision ResolvePrecision(Precision requested, const Device& device) const override {
    if (requested == Precision::kFloat32 || requested == Precision::kAuto) return Precision::kFloat32;
    throw Error(Status::kUnsupported, std::string("precision '") + PrecisionName(requested) +
                                          "' is not implemented on " + device.ToString() + " yet");
  }

  std::unique_ptr<ConstantStore> NewConstantStore() const override { return std::make_unique<DeviceConstantStore>(); }

  KernelBuild BuildKernel(const KernelRequest& request) const override {
    const KernelFactory factory = FindCudaKernel(request.attrs.op());
    Check(factory != nullptr, Status::kUnsupported,
          request.attrs.Where() + "has no kernel on " + request.device.ToString());
    Check(request.precision == Precision::kFloat32, Status::kUnsupported,
          request.attrs.Where() + "only float32 runs on " + request.device.ToString());
    auto& constants = static_cast<DeviceConstantStore&>(request.constants);
    KernelBuild build = factory(request, constants);
    std::vector<std::pair<size_t, std::shared_ptr<const void>>> swaps;
    for (size_t r = 0; r < build.runtime_inputs.size(); ++r) {
      const ConstantPtr& constant = request.inputs[build.runtime_inputs[r]].constant;
      if (constant && !constant->is_packed()) swaps.emplace_back(r, constants.Get(constant, request.device));
    }
    if (!swaps.empty()) {
      std::unique_ptr<CudaKernel> inner(static_cast<CudaKernel*>(build.kernel.release()));
      build.kernel = std::make_unique<DeviceConstantInputs>(std::move(inner), std::move(swaps));
    }
    return build;
  }

  LayoutPtr PlainLayout(const TensorType& type) const override { return RowMajorLayout(type); }
  // Every tensor is row-major: a conversion is a copy (a graph output that is an input or a parameter).
  std::unique_ptr<Kernel> MakeConversion(const LayoutPtr& from, const LayoutPtr& to) const override {
    Check(from->SameAs(*to), Status::kInternal, "the CUDA backend has one layout, but a conversion was asked for");
    return MakeDeviceCopy(to->bytes());
  }
  // Steps run one after another on the invocation's stream: no host threads to share out.
  int StepParallelism(double, double) const override { return 1; }
  // cuBLASLt's algorithms are chosen for operands aligned to 64 bytes (fully_connected_kernel.cc).
  size_t in_place_alignment() const override { return 64; }

  std::unique_ptr<Execution> StartExecution(const Device& device) const override {
    return std::make_unique<CudaExecution>(device);
  }
  bool completes_asynchronously() const override { return true; }
  std::unique_ptr<StepReplay> NewStepReplay(const StepSequence& steps, const Device& device,
                                            StepRecording recording) const override {
    return std::make_unique<CudaGraphReplay>(steps, device, recording == StepRecording::kRequired);
  }

 private:
  CudaMemory memory_;
  CudaFusionRules fusions_;
};

const bool kRegistered = (RegisterBackend(new CudaBackend), true);

}  // namespace
}  // namespace qv::cuda
