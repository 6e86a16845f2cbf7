#include "batching/batch_scheduler.h"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "batching/request_queue.h"
#include "common/counted_slot.h"
#include "common/error.h"
#include "plan/invocation.h"

namespace qv {

struct BatchScheduler::State {
  State(const BatchingOptions& o, RunBatch r, VarPtr s, bool a, OpStatistics& st)
      : options(o),
        instances(o.instances > 0 ? o.instances : (a ? 2 : 1)),
        run(std::move(r)),
        serial(std::move(s)),
        asynchronous(a),
        statistics(st),
        queue(o) {}

  // Wakes the dispatcher; the lock makes sure a dispatcher about to wait sees what changed.
  void Poke() {
    { std::lock_guard<std::mutex> lock(mu); }
    wake.notify_one();
  }

  const BatchingOptions options;
  const int instances;  // batches running at once: options.instances or the device's default
  const RunBatch run;
  const VarPtr serial;
  const bool asynchronous;
  OpStatistics& statistics;
  std::atomic<int> queued{0};  // admitted and not yet running or ended (max_queue)
  std::mutex mu;
  std::condition_variable wake;
  RequestQueue queue;  // guarded by mu
  int running = 0;     // batches pushed and not finished; guarded by mu
  bool draining = false;  // no request will join the queued ones; guarded by mu
  bool closed = false;    // the op is gone; guarded by mu
};

BatchScheduler::BatchScheduler(const BatchingOptions& options, RunBatch run, VarPtr serial,
                               bool completes_asynchronously, OpStatistics& statistics)
    : state_(std::make_shared<State>(options, std::move(run), std::move(serial), completes_asynchronously,
                                     statistics)) {
  std::thread(Dispatch, state_).detach();
}

BatchScheduler::~BatchScheduler() {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->closed = true;
  }
  state_->wake.notify_one();
}

void BatchScheduler::Drain() {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->draining = true;
  }
  state_->wake.notify_one();
}

void BatchScheduler::Submit(RequestPtr request) {
  std::unique_ptr<CountedSlot> slot = CountedSlot::TryTake(&state_->queued, state_->options.max_queue);
  if (!slot)
    throw Error(Status::kBusy, "max_queue (" + std::to_string(state_->options.max_queue) +
                                 ") requests are already queued on this op");
  // The slot's deleter holds the state (whose counter the slot points into) alive as long as the slot.
  request->queue_slot = std::shared_ptr<CountedSlot>(slot.release(), [s = state_](CountedSlot* p) { delete p; });
  std::vector<VarPtr> reads, writes;
  for (const auto& a : request->inputs) reads.push_back(a->var());
  for (const auto& a : request->outputs) writes.push_back(a->var());
  Engine::Get().PushAsync(
      [state = state_, request](const Engine::Completion& done) { Enqueue(state, request, done); }, reads, writes);
}

void BatchScheduler::Enqueue(const std::shared_ptr<State>& state, RequestPtr request, const Engine::Completion& done) {
  std::weak_ptr<State> weak = state;
  const std::shared_ptr<CountedSlot> seat = request->queue_slot;
  // The request holds its op, and so the statistics, until it has ended.
  OpStatistics* const statistics = &state->statistics;
  auto finish = [done, admission = request->admission, seat, weak, statistics](const Failure& failure) mutable {
    // max_inflight and max_queue have room again before the outputs become readable: a request cancelled
    // in the queue gives its place back at once, not when the dispatcher next sweeps the queue.
    seat->Release();
    admission.reset();
    statistics->Ended(failure);
    done(failure);
    if (auto s = weak.lock()) s->Poke();  // an ended request leaves the queue now
  };
  request->admission.reset();
  if (!request->control->SetFinisher(std::move(finish))) {
    seat->Release();
    const Failure ended = request->control->Check();  // cancelled or expired before it was queued
    statistics->Ended(ended);
    done(ended);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(state->mu);
    state->queue.Add(std::move(request), Request::Clock::now());
  }
  state->wake.notify_one();
}

void BatchScheduler::Launch(const std::shared_ptr<State>& state, std::vector<RequestPtr> batch) {
  std::vector<VarPtr> writes;
  if (state->serial) writes.push_back(state->serial);
  PushInvocationWork(
      state->asynchronous,
      [state, batch = std::move(batch)](const Engine::Completion& done) {
        state->run(batch, [state, done, group = batch.front()->group] {
          {
            std::lock_guard<std::mutex> lock(state->mu);
            --state->running;
            state->queue.RunEnded(group, Request::Clock::now());
          }
          state->wake.notify_one();
          done({});
        });
      },
      {}, writes);
}

void BatchScheduler::Dispatch(std::shared_ptr<State> state) {
  State& s = *state;
  std::unique_lock<std::mutex> lock(s.mu);
  for (;;) {
    if (s.closed && s.queue.empty()) return;
    const auto now = Request::Clock::now();
    std::vector<RequestPtr> ended = s.queue.TakeEnded(now);
    std::vector<std::vector<RequestPtr>> batches;
    while (s.running < s.instances) {
      std::vector<RequestPtr> batch = s.queue.TakeBatch(now, s.draining);
      if (batch.empty()) break;
      // The finisher holds the slot too (to release it if the request ends while queued): release it
      // here, as the request leaves the queue, rather than when it ends.
      for (const auto& r : batch) r->queue_slot->Release();
      ++s.running;
      batches.push_back(std::move(batch));
    }
    if (!ended.empty() || !batches.empty()) {
      // Ending requests and pushing work call into the engine, which may queue further requests here.
      lock.unlock();
      for (auto& r : ended) r->control->Check();  // reports an expired deadline (cancelled ones ended already)
      ended.clear();
      for (auto& b : batches) Launch(state, std::move(b));
      batches.clear();
      lock.lock();
      continue;
    }
    Request::Clock::time_point when;
    if (s.queue.NextEvent(s.running < s.instances, &when)) {
      s.wake.wait_until(lock, when);
    } else {
      s.wake.wait(lock);
    }
  }
}

}  // namespace qv
