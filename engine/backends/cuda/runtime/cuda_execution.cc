#include "backends/cuda/runtime/cuda_execution.h"

#include <chrono>
#include <map>
#include <mutex>
#include <utility>

#include "backends/cuda/runtime/cuda_devices.h"
#include "backends/cuda/runtime/cuda_error.h"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/runtime/device_resources.h"
#include "backends/cuda/runtime/row_copies.h"
#include "common/error.h"

namespace qv::cuda {
namespace {

// The profiler's track for the steps run on `stream` of `device`: one per pooled stream, numbered per
// device in order of first use.
int StreamTrack(const Device& device, cudaStream_t stream) {
  static std::mutex mu;
  static auto* tracks = new std::map<cudaStream_t, std::pair<int, int>>;  // stream -> device id, track
  std::lock_guard<std::mutex> lock(mu);
  const auto found = tracks->find(stream);
  if (found != tracks->end()) return found->second.second;
  int on_device = 1;
  for (const auto& entry : *tracks) on_device += entry.second.first == device.id;
  const int track = profiler::NewTrack(device.ToString() + " stream " + std::to_string(on_device));
  tracks->emplace(stream, std::make_pair(device.id, track));
  return track;
}

// Timing events, kept for reuse per device (a profiled ResNet-50 takes 114 an invocation, and creating
// one costs more than recording it). Never destroyed: as many as profiled steps were ever in flight.
class TimingEvents {
 public:
  static TimingEvents& Get() {
    static auto* events = new TimingEvents;
    return *events;
  }
  // An event of `device`, which is current. Throws Error.
  cudaEvent_t Take(const Device& device) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      std::vector<cudaEvent_t>& free = free_[device.id];
      if (!free.empty()) {
        const cudaEvent_t event = free.back();
        free.pop_back();
        return event;
      }
    }
    cudaEvent_t event = nullptr;
    CheckCuda(cudaEventCreate(&event), "creating a timing event on " + device.ToString());
    return event;
  }
  void Give(const Device& device, cudaEvent_t event) {
    std::lock_guard<std::mutex> lock(mu_);
    free_[device.id].push_back(event);
  }

 private:
  std::mutex mu_;
  std::map<int, std::vector<cudaEvent_t>> free_;
};

profiler::Clock::duration Milliseconds(float ms) {
  return std::chrono::duration_cast<profiler::Clock::duration>(std::chrono::duration<double, std::milli>(ms));
}

}  // namespace

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
  for (const TimedStep& step : timed) {
    TimingEvents::Get().Give(device, step.begin);
    if (step.end != nullptr) TimingEvents::Get().Give(device, step.end);
  }
  for (void* block : pinned) PinnedHostMemory().Release(block);
}

void CudaExecution::InFlight::RecordStepSpans() const {
  if (timed.empty() || timed.back().end == nullptr) return;
  const profiler::Clock::time_point now = profiler::Clock::now();
  const int track = StreamTrack(device, stream.get());
  CurrentDeviceQuietly current(device.id);
  for (const TimedStep& step : timed) {
    float ms = 0, to_last_end_ms = 0;
    if (cudaEventElapsedTime(&ms, step.begin, step.end) != cudaSuccess ||
        cudaEventElapsedTime(&to_last_end_ms, step.begin, timed.back().end) != cudaSuccess) {
      cudaGetLastError();  // a span lost is no failure of the invocation
      continue;
    }
    profiler::Record({step.label, now - Milliseconds(to_last_end_ms), Milliseconds(ms), track});
  }
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

void CudaExecution::BeginStepSpan() {
  Check(work_ != nullptr, Status::kInternal, "a step timed after the execution finished");
  CurrentDevice current(device_.id);
  const std::string where = " on " + device_.ToString();
  TimedStep step;
  step.begin = TimingEvents::Get().Take(device_);
  work_->timed.push_back(step);  // given back with the work from now on
  CheckCuda(cudaEventRecord(step.begin, work_->stream.get()), "recording a step's start" + where);
}

void CudaExecution::EndStepSpan(const profiler::LabelPtr& label) {
  Check(work_ != nullptr && !work_->timed.empty() && work_->timed.back().end == nullptr, Status::kInternal,
        "a step's span ended that had not begun");
  CurrentDevice current(device_.id);
  const std::string where = " on " + device_.ToString();
  TimedStep& step = work_->timed.back();
  step.label = label;
  step.end = TimingEvents::Get().Take(device_);
  CheckCuda(cudaEventRecord(step.end, work_->stream.get()), "recording a step's end" + where);
}

void CudaExecution::Finish() {
  Check(work_ != nullptr, Status::kInternal, "an execution finished twice");
  CurrentDevice current(device_.id);
  const std::string where = " on " + device_.ToString();
  CheckCuda(cudaEventRecord(work_->done, work_->stream.get()), "recording completion" + where);
  // Errors of asynchronous work (a kernel that faulted) surface here.
  CheckCuda(cudaEventSynchronize(work_->done), "running the invocation" + where);
  work_->RecordStepSpans();
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
    if (!failure) work->RecordStepSpans();
    work.reset();
    done(failure);
  };
  ResourcesOf(device_.id).completions.Add(std::move(pending));
}

}  // namespace qv::cuda
