#include "backends/cuda/runtime/cuda_execution.h"

#include <utility>

#include "backends/cuda/runtime/cuda_devices.h"
#include "backends/cuda/runtime/cuda_error.h"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/runtime/device_resources.h"
#include "backends/cuda/runtime/row_copies.h"
#include "common/error.h"

namespace qv::cuda {

CudaExecution::InFlight::InFlight(const Device& d) : device(d), stream(ResourcesOf(d.id).streams) {
  CurrentDevice current(device.id);
  // Timing off makes recording cheaper; blocking sync makes the poller sleep in cudaEventSynchronize
  // instead of spinning on a core the engine's workers could use.
  CheckCuda(cudaEventCreateWithFlags(&done, cudaEventDisableTiming | cudaEventBlockingSync),
            "creating an event on " + device.ToString());
}

CudaExecution::InFlight::~InFlight() {
  {
    CurrentDeviceQuietly current(device.id);
    cudaEventDestroy(done);
  }
  for (void* block : pinned) PinnedHostMemory().Release(block);
}

CudaExecution::CudaExecution(const Device& device) : device_(device), work_(std::make_unique<InFlight>(device)) {}

CudaExecution::~CudaExecution() {
  if (!work_) return;
  // Errors were reported by the step or Finish that met them.
  cudaStreamSynchronize(work_->stream.get());
  cudaGetLastError();
}

void EnqueueStep(const Kernel& kernel, const ExecArgs& args, const StreamContext& on, const std::string& node,
                 const Device& device) {
  const CudaKernel& cuda_kernel = AsCudaKernel(kernel, node);
  try {
    cuda_kernel.Enqueue(args, on);
  } catch (const Error& e) {
    throw Error(e.status(), "node '" + node + "' on " + device.ToString() + ": " + e.what());
  }
}

void CudaExecution::Run(const Kernel& kernel, ExecArgs& args, int, const std::string& node) {
  Check(work_ != nullptr, Status::kInternal, "node '" + node + "': run after the execution finished");
  CurrentDevice current(device_.id);
  EnqueueStep(kernel, args, work_->stream.context(), node, device_);
}

void CudaExecution::Gather(void* dst, size_t bytes, const InputBinding& pieces) {
  Check(work_ != nullptr, Status::kInternal, "an input gathered after the execution finished");
  CurrentDevice current(device_.id);
  EnqueueGather(dst, bytes, pieces, work_->stream.get(), device_.id, &work_->pinned);
}

void CudaExecution::Scatter(const void* src, const OutputBinding& pieces) {
  Check(work_ != nullptr, Status::kInternal, "an output scattered after the execution finished");
  CurrentDevice current(device_.id);
  EnqueueScatter(src, pieces, work_->stream.get(), device_.id);
}

void CudaExecution::CopyInOrder(void* dst, const void* src, size_t bytes) {
  Check(work_ != nullptr, Status::kInternal, "a copy after the execution finished");
  CurrentDevice current(device_.id);
  EnqueueDeviceCopy(work_->stream.context(), dst, src, bytes, device_.id);
}

void CudaExecution::Finish() {
  Check(work_ != nullptr, Status::kInternal, "an execution finished twice");
  CurrentDevice current(device_.id);
  const std::string where = " on " + device_.ToString();
  CheckCuda(cudaEventRecord(work_->done, work_->stream.get()), "recording completion" + where);
  // Errors of asynchronous work (a kernel that faulted) surface here.
  CheckCuda(cudaEventSynchronize(work_->done), "running the invocation" + where);
}

CompletionPoller::Pending AwaitEvent(cudaEvent_t event, const Device& device) {
  CompletionPoller::Pending pending;
  pending.ready = [event] { return cudaEventQuery(event) != cudaErrorNotReady; };
  pending.wait = [event, device]() -> std::exception_ptr {
    try {
      // Errors of asynchronous work (a kernel that faulted) surface here.
      CheckCuda(cudaEventSynchronize(event), "running the invocation on " + device.ToString());
    } catch (...) {
      return std::current_exception();
    }
    return nullptr;
  };
  return pending;
}

void CudaExecution::FinishAsync(Done done) {
  try {
    Check(work_ != nullptr, Status::kInternal, "an execution finished twice");
    CurrentDevice current(device_.id);
    CheckCuda(cudaEventRecord(work_->done, work_->stream.get()), "recording completion on " + device_.ToString());
  } catch (...) {
    done(std::current_exception());  // the destructor waits for the stream before giving it back
    return;
  }
  std::shared_ptr<InFlight> work(std::move(work_));
  const cudaEvent_t event = work->done;
  const Device device = device_;
  CompletionPoller::Pending pending = AwaitEvent(event, device);
  // The stream, the event and the pinned staging go back before `done` reports the outputs readable.
  pending.done = [work = std::move(work), done = std::move(done)](std::exception_ptr failure) mutable {
    work.reset();
    done(failure);
  };
  ResourcesOf(device_.id).completions.Add(std::move(pending));
}

}  // namespace qv::cuda
