// A cached op's request queue: requests enter it once their inputs are readable (through the
// engine), a dispatcher thread forms batches (RequestQueue decides which and when) and runs them as
// engine work, at most `instances` at a time, and ends requests that are cancelled or pass their
// deadline while they wait.
//
// Lifetime: requests keep their op (and so this scheduler) alive, so requests queued when the op's
// handle is freed still run (Drain: at once). The dispatcher thread shares only the queue's state;
// destroying the scheduler (which happens once no request is left) lets it end on its own.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "batching/batching_options.h"
#include "batching/op_statistics.h"
#include "batching/request.h"
#include "scheduler/engine.h"

namespace qv {

class BatchScheduler {
 public:
  // Starts one batch, calls `done` when its run is over and ends every request in it (BatchRunner::Run);
  // must not throw.
  using RunBatch = std::function<void(const std::vector<RequestPtr>& batch, std::function<void()> done)>;

  // `serial`: a variable every run writes (orders runs of an op that is not thread-safe), or null.
  // `completes_asynchronously`: whether a batch ends after `run` returns, on the device's thread
  // (PushInvocationWork), rather than on an engine worker before it returns.
  // Every request's end is counted into `statistics`, which outlives the requests.
  BatchScheduler(const BatchingOptions& options, RunBatch run, VarPtr serial, bool completes_asynchronously,
                 OpStatistics& statistics);
  ~BatchScheduler();
  BatchScheduler(const BatchScheduler&) = delete;
  BatchScheduler& operator=(const BatchScheduler&) = delete;

  // Admits `request` (Status::kBusy when max_queue requests are queued already) and queues it once the
  // engine has finished the pending writes to its inputs. Its outputs stay unreadable until it ends.
  void Submit(RequestPtr request);
  // From now on queued requests run without waiting for batch_timeout_us: no more will join them.
  void Drain();

 private:
  struct State;
  static void Dispatch(std::shared_ptr<State> state);
  static void Enqueue(const std::shared_ptr<State>& state, RequestPtr request, const Engine::Completion& done);
  static void Launch(const std::shared_ptr<State>& state, std::vector<RequestPtr> batch);

  std::shared_ptr<State> state_;
};

}  // namespace qv
