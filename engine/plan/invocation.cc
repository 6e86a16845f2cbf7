#include "plan/invocation.h"

#include "common/error.h"
#include "common/profiler.h"

namespace qv {
namespace {

struct Run {
  std::shared_ptr<const Plan> plan;
  std::vector<InvocationRequest> requests;
  std::function<void()> done;
  profiler::Clock::time_point started;  // for the profiler's invocation span (when it is on)
  int thread = 0;                       // the thread it started on; 0: started with the profiler off
};

// The run's span, from its start to now: it has ended.
void RecordInvocation(const Run& run) {
  if (run.thread == 0 || !profiler::Enabled()) return;
  profiler::Record({profiler::InvocationLabel(), run.started, profiler::Clock::now() - run.started, run.thread,
                    static_cast<int64_t>(run.requests.size())});
}

// Ends `control` once its run is over with `run` (ok: the run succeeded) and returns what it ended
// with: ok if it could still be claimed, its own end if it had one (cancelled, deadline), else `run`.
Failure EndControl(InvocationControl& control, const Failure& run) {
  if (run.ok() && control.Claim())
    control.Finish({});
  else
    control.Finish(run);  // a no-op when it ended already
  return control.Check();
}

}  // namespace

void EndInvocation(std::vector<InvocationRequest>& requests, const Failure& failure) {
  for (InvocationRequest& r : requests) {
    const Failure ended = EndControl(*r.control, failure);
    r.end(ended);
  }
}

void StartInvocation(std::shared_ptr<const Plan> plan, const Device& device, std::vector<InvocationRequest> requests,
                     std::function<void()> done) {
  if (requests.empty()) {
    done();
    return;
  }
  const bool profiled = profiler::Enabled();
  auto run = std::make_shared<Run>(Run{std::move(plan), std::move(requests), std::move(done),
                                       profiled ? profiler::Clock::now() : profiler::Clock::time_point{},
                                       profiled ? profiler::ThreadNumber() : 0});
  std::vector<InputBinding> inputs(run->requests.front().inputs.size());
  std::vector<OutputBinding> outputs(run->requests.front().outputs.size());
  for (const InvocationRequest& r : run->requests) {
    for (size_t i = 0; i < inputs.size(); ++i)
      inputs[i].push_back({r.inputs[i]->data(), r.inputs[i]->nbytes(), r.inputs[i]->device() != device});
    for (size_t k = 0; k < outputs.size(); ++k) outputs[k].push_back({r.outputs[k]->data(), r.outputs[k]->nbytes()});
  }
  // Stops the run once no request is left to deliver to. Check reads the clock only for a request
  // with a deadline: this runs before every step.
  const auto any_alive = [&run] {
    for (const InvocationRequest& r : run->requests)
      if (r.control->Check().ok()) return;
    throw Error(Status::kCancelled, "every request of the invocation was cancelled or passed its deadline");
  };
  try {
    any_alive();
    run->plan->RunAsync(inputs, outputs, any_alive, [run](std::exception_ptr error) {
      Failure failure;
      if (error) {
        try {
          std::rethrow_exception(error);
        } catch (...) {
          failure = FailureFromCurrentException();
        }
      }
      RecordInvocation(*run);
      run->done();
      EndInvocation(run->requests, failure);
    });
  } catch (...) {
    RecordInvocation(*run);
    run->done();
    EndInvocation(run->requests, FailureFromCurrentException());
  }
}

void PushInvocationWork(bool completes_asynchronously, Engine::AsyncWork work, const std::vector<VarPtr>& reads,
                        const std::vector<VarPtr>& writes) {
  if (completes_asynchronously) {
    Engine::Get().PushAsync(std::move(work), reads, writes);
    return;
  }
  Engine::Get().Push(
      [work = std::move(work)] {
        Failure ended;
        work([&ended](const Failure& f) { ended = f; });
        ThrowIfFailed(ended);
      },
      reads, writes);
}

}  // namespace qv
