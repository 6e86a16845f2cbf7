// The CPU behind the Backend interface: oneDNN and plain C++ kernels, run synchronously on the
// calling thread with a lease on the process's compute-thread budget.
#include <mutex>

#include "backends/backend.h"
#include "backends/cpu/runtime/constant_cache.h"
#include "backends/cpu/runtime/cpu_precision.h"
#include "backends/cpu/kernels/dnnl_kernel.h"
#include "ops/int8_hints.h"
#include "scheduler/cpu_budget.h"
#include "scheduler/engine.h"

namespace qv::cpu {
namespace {

// oneDNN fuses any element-wise post-op and a residual sum into a convolution and a float inner product
// (BERT's GELU and residual additions), element-wise post-ops into a deconvolution, and only a plain
// ReLU into batch normalisation. An inner product MXNet quantized keeps what MXNet fused into it and no
// more: its int8 output range is that of MXNet's fusion (CheckInt8Fusions compares the two), and
// BuildInt8FullyConnected fuses nothing.
class CpuFusionRules : public FusionRules {
 public:
  bool FusesPostOp(const Node& producer, const PostOp& post) const override {
    if (producer.op == "Convolution") return true;
    if (producer.op == "Deconvolution") return post.kind != PostOp::kSum;
    if (IsFloatInnerProduct(producer)) return post.kind != PostOp::kSum;
    return producer.op == "BatchNorm" && producer.post_ops.empty() && post.kind == PostOp::kRelu;
  }
  bool FusesSum(const Node& producer) const override {
    return (producer.op == "Convolution" || IsFloatInnerProduct(producer)) && !HasSum(producer.post_ops);
  }

 private:
  static bool IsFloatInnerProduct(const Node& node) {
    return node.op == "FullyConnected" && node.attrs.count(int8_attr::kInType) == 0;
  }
};

// Kernels are made for the whole budget; the setting belongs to the calling thread, so it is put back
// afterwards.
class WholeBudgetThreads {
 public:
  WholeBudgetThreads() { SetComputeThreads(CpuBudget::Get().threads()); }
  ~WholeBudgetThreads() { SetComputeThreads(caller_); }
  WholeBudgetThreads(const WholeBudgetThreads&) = delete;
  WholeBudgetThreads& operator=(const WholeBudgetThreads&) = delete;

 private:
  const int caller_ = ComputeThreads();
};

class CpuExecution : public Execution {
 public:
  CpuExecution() : budget_(CpuBudget::Get()), participant_(&budget_) {}

  void Run(const Kernel& kernel, ExecArgs& args, int parallelism, const std::string& node) override {
    const CpuBudget::Lease lease = budget_.Acquire(parallelism);
    args.threads = lease.threads();
    try {
      kernel.Execute(args);
    } catch (const dnnl::error& e) {
      throw Error(Status::kInternal, "node '" + node + "': oneDNN failed: " + e.what());
    }
  }
  void Finish() override {}  // every step ran to completion inside Run

 private:
  CpuBudget& budget_;
  CpuBudget::Participant participant_;
};

class CpuBackend : public Backend {
 public:
  DeviceType device_type() const override { return DeviceType::kCpu; }
  void RequireDevice(const Device& device) const override {
    Check(device.id == 0, Status::kDevice, "device " + device.ToString() + " does not exist (only cpu(0))");
  }
  const DeviceMemory& memory() const override { return DeviceMemoryOf(Device{}); }

  bool Supports(const std::string& op) const override { return FindCpuKernel(op).factory != nullptr; }
  std::vector<std::string> SupportedOps() const override { return ListCpuKernels(); }
  const FusionRules& fusions() const override { return fusions_; }
  Precision ResolvePrecision(Precision requested, const Device&) const override {
    return ResolveCpuPrecision(requested);
  }

  std::unique_ptr<ConstantStore> NewConstantStore() const override { return std::make_unique<ConstantCache>(); }

  KernelBuild BuildKernel(const KernelRequest& request) const override {
    const CpuKernel kernel = FindCpuKernel(request.attrs.op());
    Check(kernel.factory != nullptr, Status::kUnsupported, request.attrs.Where() + "has no kernel on cpu(0)");
    std::vector<ValueInfo> inputs;
    for (const auto& in : request.inputs) {
      if (IsQuantized(DescOf(in)) && !kernel.reads_int8) inputs.push_back({in.type, PlainLayout(in.type), in.constant});
      else inputs.push_back(in);
    }
    KernelBuild build;
    try {
      const WholeBudgetThreads threads;
      build = kernel.factory(
          {request.attrs, request.constants, inputs, request.outputs, request.precision, request.device});
    } catch (const dnnl::error& e) {
      throw Error(Status::kUnsupported, request.attrs.Where() + "oneDNN cannot build its kernel: " + e.what());
    }
    // The kernel just built brought oneDNN's global state into being.
    static std::once_flag stop_workers_at_exit;
    std::call_once(stop_workers_at_exit, Engine::StopWorkersAtExit);
    return build;
  }

  LayoutPtr PlainLayout(const TensorType& type) const override { return ToLayout(PlainDesc(type.shape)); }
  std::unique_ptr<Kernel> MakeConversion(const LayoutPtr& from, const LayoutPtr& to) const override {
    const WholeBudgetThreads threads;
    return MakeReorderKernel(DescOf(*from), DescOf(*to), QuantizationOf(*to));
  }

  int StepParallelism(double flops, double bytes) const override { return ThreadsWorthUsing(flops, bytes); }

  std::unique_ptr<Execution> StartExecution(const Device&) const override {
    return std::make_unique<CpuExecution>();
  }

 private:
  CpuFusionRules fusions_;
};

const bool kRegistered = (RegisterBackend(new CpuBackend), true);

}  // namespace
}  // namespace qv::cpu
