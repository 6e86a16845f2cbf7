// One run of a plan, for one request or for a batch of them: the single place where an invocation
// starts, stops early and ends, whatever scheduled it (CachedOp::Invoke alone, or a request queue's
// batch) and whatever device runs it.
//
// The requests' arrays are bound to the plan's inputs and outputs (Plan::RunAsync): a lone request of
// the plan's own shapes is read and written in place; a batch's requests are gathered, in order,
// into the merged inputs (the rows past them zero) and scattered from the merged outputs by the
// device's execution, so a batch completes asynchronously, holding no engine worker, on a device
// that can, and replays the plan's recording like a single invocation.
//
// A run whose requests have all ended (cancelled, or past their deadline) does not start, and stops
// at the next step once that happens while it runs (a batch's scheduler leaves requests that ended
// while queued out of the batch). Each request's end is reported once the run is over,
// since its outputs may be written until then: ok if it could still be claimed, else why not.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "common/device.h"
#include "plan/plan.h"
#include "scheduler/engine.h"
#include "scheduler/invocation_control.h"
#include "tensor/ndarray.h"

namespace qv {

struct InvocationRequest {
  std::vector<NDArrayPtr> inputs, outputs;  // inputs on the plan's device or the host; outputs on the device
  std::shared_ptr<InvocationControl> control;
  InvocationControl::Finisher end;  // reports the request's end, exactly once
};

// Runs `plan` on `device` for `requests`, whose rows fill the plan's inputs and outputs in order. When
// the run is over, calls `done` (which may hold what the plan needs: its op), then ends every request,
// so that what `done` records (a batch's run time) is in place before any output becomes readable.
// Never throws.
void StartInvocation(std::shared_ptr<const Plan> plan, const Device& device, std::vector<InvocationRequest> requests,
                     std::function<void()> done);

// Ends every request with `failure`, which stopped them before a run (no plan for their shapes).
void EndInvocation(std::vector<InvocationRequest>& requests, const Failure& failure);

// Pushes `work`, which ends by calling its completion, to the engine: only enqueued (Engine::PushAsync,
// on the thread that frees its dependencies) where `completes_asynchronously`, else run on a worker
// (Engine::Push), since a synchronous backend computes on the calling thread.
void PushInvocationWork(bool completes_asynchronously, Engine::AsyncWork work, const std::vector<VarPtr>& reads,
                        const std::vector<VarPtr>& writes);

}  // namespace qv
