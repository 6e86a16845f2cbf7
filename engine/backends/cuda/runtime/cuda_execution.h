// One invocation's run of a plan on a GPU: a stream borrowed from the device's pool for the whole
// invocation, a batch's rows and host inputs gathered onto the device on that stream (outputs'
// rows scattered back likewise), every step enqueued on it in order,
// and an event recorded after the last step. Finish waits on the event; FinishAsync hands the event,
// the stream and the pinned staging to the device's CompletionPoller, which reports completion from
// its own thread and only then gives them back, so no engine thread waits on the GPU. While the
// profiler is on, timing events bracket each step; their spans are recorded on completion.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/cuda/runtime/completion_poller.h"
#include "backends/cuda/runtime/stream_pool.h"

namespace qv::cuda {

class CudaExecution : public Execution {
 public:
  explicit CudaExecution(const Device& device);
  // Unless FinishAsync took them over, waits for whatever was enqueued before handing the stream and
  // the pinned staging back: the plan frees the workspace the steps use right after, also when a step
  // failed.
  ~CudaExecution() override;

  void Run(const Kernel& kernel, ExecArgs& args, int parallelism, const std::string& node) override;
  void Finish() override;
  void FinishAsync(Done done) override;
  // Host pieces go through pinned memory, copied now, kept until the stream has passed them.
  void Gather(void* dst, size_t bytes, const InputBinding& pieces) override;
  void Scatter(const void* src, const OutputBinding& pieces) override;
  void CopyInOrder(void* dst, const void* src, size_t bytes) override;
  void BeginStepSpan() override;
  void EndStepSpan(const profiler::LabelPtr& label) override;

 private:
  // A profiled step: timing events recorded on the stream before and after it.
  struct TimedStep {
    profiler::LabelPtr label;
    cudaEvent_t begin = nullptr;
    cudaEvent_t end = nullptr;
  };

  // What the enqueued work uses: returned (never waited for) when destroyed, so only once the work
  // has completed.
  struct InFlight {
    explicit InFlight(const Device& device);
    ~InFlight();
    InFlight(const InFlight&) = delete;
    InFlight& operator=(const InFlight&) = delete;

    const Device device;
    StreamPool::Lease stream;
    cudaEvent_t done = nullptr;
    std::vector<void*> pinned;   // from PinnedHostMemory()
    std::vector<TimedStep> timed;  // the last one's end is missing while its step is being enqueued

    // Records the timed steps' spans, on the stream's track, once every step has completed: the
    // device measured each step and the time from its start to the last step's end, which is placed
    // at the host's now (at most the completion thread's wake-up later than it was).
    void RecordStepSpans() const;
  };

  const Device device_;
  std::unique_ptr<InFlight> work_;  // null once FinishAsync took it
};

// Enqueues one step (`kernel`, a CUDA kernel, of the node called `node`) on `on`, a stream of `device`,
// which is current. Throws Error naming the node and the device.
void EnqueueStep(const Kernel& kernel, const ExecArgs& args, const StreamContext& on, const std::string& node,
                 const Device& device);

// The completion thread's handle on `event` (recorded after an invocation's last step on `device`):
// whether it has completed, and waiting for it, which reports a faulting kernel's error.
CompletionPoller::Pending AwaitEvent(cudaEvent_t event, const Device& device);

}  // namespace qv::cuda
