#include "backends/cuda/runtime/cuda_graph_replay.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <utility>

#include "backends/cuda/runtime/cuda_devices.h"
#include "backends/cuda/runtime/cuda_error.h"
#include "backends/cuda/runtime/cuda_execution.h"
#include "backends/cuda/runtime/device_resources.h"
#include "backends/cuda/runtime/row_copies.h"
#include "common/error.h"
#include "common/notice.h"

namespace qv::cuda {
namespace {

// Enqueues steps on a slot's stream. While the stream is captured, a step that broke the capture
// without failing itself (a library that swallowed the error) is named right after it.
class SlotExecution : public Execution {
 public:
  SlotExecution(const StreamContext& context, const Device& device, bool capturing)
      : context_(context), device_(device), capturing_(capturing) {}
  void Run(const Kernel& kernel, ExecArgs& args, int, const std::string& node) override {
    EnqueueStep(kernel, args, context_, node, device_);
    if (capturing_) ThrowIfCaptureBroken(node);
  }
  void CopyInOrder(void* dst, const void* src, size_t bytes) override {
    EnqueueDeviceCopy(context_, dst, src, bytes, device_.id);
  }
  void Finish() override { throw Error(Status::kInternal, "a slot's steps are finished by its replay"); }
  // A recording's steps run as one unit: they have no spans of their own.
  void BeginStepSpan() override {}
  void EndStepSpan(const profiler::LabelPtr&) override {}

 private:
  void ThrowIfCaptureBroken(const std::string& node) const {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    const cudaError_t queried = cudaStreamIsCapturing(context_.stream, &status);
    if (queried == cudaSuccess && status == cudaStreamCaptureStatusActive) return;
    cudaError_t cause = cudaGetLastError();
    if (cause == cudaSuccess) cause = queried != cudaSuccess ? queried : cudaErrorStreamCaptureInvalidated;
    throw Error(Status::kUnsupported, "node '" + node + "' on " + device_.ToString() + ": " + DescribeCudaError(cause));
  }

  const StreamContext& context_;
  const Device& device_;
  const bool capturing_;
};

}  // namespace

struct CudaGraphReplay::Slot {
  Slot(const Device& d, const StepSequence& steps) : device(d), stream(ResourcesOf(d.id).streams) {
    CurrentDevice current(device.id);
    BlockPool& memory = ResourcesOf(device.id).memory;
    try {
      if (steps.arena_bytes() > 0) arena = memory.Acquire(steps.arena_bytes());
      for (size_t bytes : steps.input_bytes()) inputs.push_back(memory.Acquire(bytes));
      for (size_t bytes : steps.output_bytes()) outputs.push_back(memory.Acquire(bytes));
      CheckCuda(cudaEventCreateWithFlags(&done, cudaEventDisableTiming | cudaEventBlockingSync),
                "creating an event on " + device.ToString());
    } catch (...) {
      Release();
      throw;
    }
  }
  ~Slot() { Release(); }
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;

  // Never throws.
  void Release() {
    {
      CurrentDeviceQuietly current(device.id);
      if (exec != nullptr) cudaGraphExecDestroy(exec);
      if (done != nullptr) cudaEventDestroy(done);
    }
    exec = nullptr;
    done = nullptr;
    BlockPool& memory = ResourcesOf(device.id).memory;
    if (arena != nullptr) memory.Release(arena);
    arena = nullptr;
    for (void* p : inputs) memory.Release(p);
    for (void* p : outputs) memory.Release(p);
    inputs.clear();
    outputs.clear();
  }

  const Device device;
  StreamPool::Lease stream;  // its cuDNN handle and workspace are baked into the graph too
  void* arena = nullptr;
  std::vector<void*> inputs, outputs;
  cudaGraphExec_t exec = nullptr;  // null until captured
  cudaEvent_t done = nullptr;
};

CudaGraphReplay::CudaGraphReplay(const StepSequence& steps, const Device& device, bool required)
    : steps_(steps), device_(device), required_(required) {}

CudaGraphReplay::~CudaGraphReplay() = default;

CudaGraphReplay::Slot* CudaGraphReplay::Acquire() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!uncapturable_.empty()) {
    if (required_) throw Error(Status::kUnsupported, RequiredCaptureFailed(uncapturable_));
    return nullptr;
  }
  if (!free_.empty()) {
    Slot* slot = free_.back();
    free_.pop_back();
    return slot;
  }
  if (slots_.size() >= kMaxSlots) return nullptr;
  try {
    slots_.push_back(std::make_unique<Slot>(device_, steps_));
  } catch (const Error& e) {
    if (e.status() != Status::kOutOfMemory) throw;
    return nullptr;  // the next invocation tries again
  }
  return slots_.back().get();
}

void CudaGraphReplay::Return(Slot* slot) {
  std::lock_guard<std::mutex> lock(mu_);
  if (uncapturable_.empty()) {
    free_.push_back(slot);
  } else {
    DropLocked(slot);
  }
}

void CudaGraphReplay::DropLocked(Slot* slot) {
  slots_.erase(std::find_if(slots_.begin(), slots_.end(), [slot](const auto& s) { return s.get() == slot; }));
}

void CudaGraphReplay::EnqueueSteps(Slot& slot, bool capturing) const {
  SlotExecution execution(slot.stream.context(), device_, capturing);
  const std::vector<const void*> inputs(slot.inputs.begin(), slot.inputs.end());
  steps_.RunSteps(execution, static_cast<char*>(slot.arena), inputs, slot.outputs);
}

std::string CudaGraphReplay::Capture(Slot& slot) const {
  const cudaStream_t stream = slot.stream.get();
  const std::string where = " on " + device_.ToString();
  cudaGetLastError();  // an error left by earlier calls must not be blamed on the capture
  // Thread-local: another thread's calls elsewhere neither break this capture nor are broken by it.
  cudaError_t status = cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
  if (status != cudaSuccess) {
    cudaGetLastError();
    return "beginning a capture" + where + ": " + DescribeCudaError(status);
  }
  std::string failure;
  try {
    EnqueueSteps(slot, true);
  } catch (...) {
    // A step refused, naming itself; CUDA may say more (a library's status hides the cause).
    failure = FailureFromCurrentException().message;
    const cudaError_t cause = cudaGetLastError();
    if (cause != cudaSuccess && failure.find(cudaGetErrorName(cause)) == std::string::npos)
      failure += " (" + DescribeCudaError(cause) + ")";
  }
  // Ends the capture in any case: the stream goes on running the slot's copies.
  cudaGraph_t graph = nullptr;
  status = cudaStreamEndCapture(stream, &graph);
  if (failure.empty() && status != cudaSuccess)
    failure = "ending the capture" + where + ": " + DescribeCudaError(status);
  if (failure.empty()) {
    status = cudaGraphInstantiate(&slot.exec, graph, 0);
    if (status != cudaSuccess) {
      slot.exec = nullptr;
      failure = "instantiating the graph" + where + ": " + DescribeCudaError(status);
    }
  }
  if (graph != nullptr) cudaGraphDestroy(graph);
  cudaGetLastError();  // what a failed capture leaves behind is in `failure`
  return failure;
}

std::string CudaGraphReplay::RequiredCaptureFailed(const std::string& why) const {
  return "the plan's steps cannot be captured into a CUDA graph, which cuda_graphs = 'required' asks for: " + why;
}

void CudaGraphReplay::GiveUpCapture(const std::string& why) {
  bool first = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    first = uncapturable_.empty();
    if (first) uncapturable_ = why;
    for (Slot* idle : free_) DropLocked(idle);
    free_.clear();
  }
  if (required_) throw Error(Status::kUnsupported, RequiredCaptureFailed(why));
  if (first)
    Notice("a plan's steps cannot be captured into a CUDA graph (" + why +
           "); the plan launches them one by one from now on");
}

bool CudaGraphReplay::TryRun(const std::vector<InputBinding>& inputs, const std::vector<OutputBinding>& outputs,
                             Execution::Done& done) {
  Slot* slot = Acquire();
  if (slot == nullptr) return false;
  CurrentDevice current(device_.id);
  const std::string where = " on " + device_.ToString();
  const cudaStream_t stream = slot->stream.get();
  auto pinned = std::make_shared<std::vector<void*>>();
  const auto give_back = [this, slot, pinned, stream] {
    cudaStreamSynchronize(stream);  // what was enqueued reads the slot and the staging
    cudaGetLastError();
    for (void* p : *pinned) PinnedHostMemory().Release(p);
    Return(slot);
  };
  try {
    for (size_t i = 0; i < inputs.size(); ++i)
      EnqueueGather(slot->inputs[i], steps_.input_bytes()[i], inputs[i], stream, device_.id, pinned.get());
    if (slot->exec != nullptr) {
      CheckCuda(cudaGraphLaunch(slot->exec, stream), "launching a CUDA graph" + where);
    } else {
      // This invocation's results, and the warm-up of the capture. The capture needs no wait for
      // the eager steps: it records what is enqueued from its start, whatever the stream still runs,
      // and what must not happen inside it (loading a kernel's module, a library's set-up) happened
      // on this thread before the eager launches returned.
      EnqueueSteps(*slot, false);
      const std::string failure = Capture(*slot);
      if (!failure.empty()) GiveUpCapture(failure);
    }
    for (size_t k = 0; k < outputs.size(); ++k) EnqueueScatter(slot->outputs[k], outputs[k], stream, device_.id);
    CheckCuda(cudaEventRecord(slot->done, stream), "recording completion" + where);
  } catch (...) {
    give_back();
    throw;
  }
  const cudaEvent_t event = slot->done;
  const Device device = device_;
  CompletionPoller::Pending pending = AwaitEvent(event, device);
  // The slot and the staging go back before `done` runs: the caller may drop the plan (and this) in it.
  pending.done = [this, slot, pinned, done = std::move(done)](std::exception_ptr failure) {
    for (void* p : *pinned) PinnedHostMemory().Release(p);
    Return(slot);
    done(failure);
  };
  ResourcesOf(device_.id).completions.Add(std::move(pending));
  return true;
}

}  // namespace qv::cuda
