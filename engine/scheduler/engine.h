// The dependency engine: asynchronous work ordered by the variables it reads and writes.
//
// Work pushed with read set R and write set W runs on a worker thread once every earlier write to R and
// every earlier read or write of W has finished (per-variable FIFO order). A failure (an Error thrown
// by the work, or a failure already recorded on a variable it reads) is recorded on every variable the
// work writes; a later successful write clears it. Readers learn of it through WaitToRead / OnReady.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/error.h"

namespace qv {

class Var;  // defined in engine.cc; opaque to users
using VarPtr = std::shared_ptr<Var>;

class Engine {
 public:
  using Work = std::function<void()>;                 // throws Error on failure
  using ReadyCallback = std::function<void(const Failure&)>;
  // Ends asynchronous work with its outcome. Copyable; only the first call counts.
  using Completion = std::function<void(const Failure&)>;
  using AsyncWork = std::function<void(Completion done)>;  // may throw Error instead of calling done

  // The process-wide engine; created on first use, never destroyed. At process exit it stops its
  // workers (running work finishes, queued work never starts) when the exit handlers reach it.
  static Engine& Get();

  // Exit handlers run in reverse order of registration, so global state created after the engine
  // (oneDNN builds its own lazily, at the first primitive) would be destroyed while workers still use
  // it. Calling this once such state exists stops the workers at exit before it goes.
  static void StopWorkersAtExit();

  virtual ~Engine() = default;

  virtual VarPtr NewVar() = 0;

  // Schedules `work`. A variable in both sets counts as written. `work` is skipped (and its failure
  // recorded on `writes`) if a variable in `reads` holds a failure when it would run.
  virtual void Push(Work work, const std::vector<VarPtr>& reads, const std::vector<VarPtr>& writes) = 0;
  // Like Push, for work that only starts something and ends later, on any thread, by calling `done`
  // (MXNet's asynchronous operators). `work` runs on the thread that releases its last dependency
  // (this one if none is pending), never on a worker: it must return promptly and never block.
  virtual void PushAsync(AsyncWork work, const std::vector<VarPtr>& reads, const std::vector<VarPtr>& writes) = 0;

  // True when no write pushed so far to `var` is pending. Never blocks.
  virtual bool CanRead(const VarPtr& var) = 0;
  // Waits for the writes pushed so far to `var`; returns the failure recorded on it (ok() if none).
  virtual Failure WaitToRead(const VarPtr& var) = 0;
  // Runs `callback` once `var` is readable: now on this thread if it already is (after the callback the
  // thread runs, if it is inside one), else on the callback thread, where WaitAll is refused (engine.cc).
  virtual void OnReady(const VarPtr& var, ReadyCallback callback) = 0;
  // Waits until every piece of work pushed so far has finished and its OnReady callbacks have run.
  virtual void WaitAll() = 0;

  // Number of worker threads (equal to the compute-thread budget).
  virtual int num_workers() const = 0;
};

}  // namespace qv
