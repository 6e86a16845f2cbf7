// The requests waiting for a run, grouped by their shapes beyond axis 0, in priority order (then
// arrival order) within a group. Decides which requests run together and when; holds no lock and
// starts no thread (BatchScheduler does both).
//
// A group that cannot fill a batch waits while a run of its shapes goes, and its timeout counts from
// that run's end when later than its oldest request: the clients of the running batch come back
// within the timeout and fill it. Otherwise the requests that missed a batch start as one of their
// own the moment an instance is free (their timeout long passed), miss the next batch in turn, and
// the split repeats for as long as the load lasts (64 clients on a GPU: 0.74x the throughput of
// whole batches).
#pragma once

#include <algorithm>
#include <map>
#include <vector>

#include "batching/batching_options.h"
#include "batching/request.h"

namespace qv {

class RequestQueue {
 public:
  using Clock = Request::Clock;

  explicit RequestQueue(const BatchingOptions& options) : options_(options) {}

  void Add(RequestPtr request, Clock::time_point now);
  bool empty() const { return size() == 0; }
  size_t size() const;

  // Removes and returns the requests that ended (cancelled, or past their deadline at `now`).
  std::vector<RequestPtr> TakeEnded(Clock::time_point now);
  // Removes and returns the next run's requests, or none: from a group holding max_batch_size rows
  // or whose oldest request has waited batch_timeout_us (or any group if `flush`), the one whose first
  // request has the highest priority (then the oldest). Takes requests in order while their rows fit
  // in max_batch_size (a larger first request runs alone).
  // A group with a run going is ready only when full (or on `flush`); after its run ends, its timeout
  // counts from then.
  std::vector<RequestPtr> TakeBatch(Clock::time_point now, bool flush);
  // A run of TakeBatch's requests (of shapes `group`) ended at `now`.
  void RunEnded(const std::vector<Shape>& group, Clock::time_point now);
  // The earliest time TakeEnded (a deadline) or, if `runs_free`, TakeBatch may have something; false
  // if nothing is pending.
  bool NextEvent(bool runs_free, Clock::time_point* when) const;

 private:
  struct Group {
    std::vector<RequestPtr> requests;  // priority order, then arrival
    int64_t rows = 0;
    int running = 0;                  // runs taken from this group and not ended
    Clock::time_point last_run_end;   // of the latest run that ended, or the epoch
    Clock::time_point oldest() const;
    // When the batch timeout starts counting: the oldest request's arrival or the last run's end.
    Clock::time_point waiting_since() const { return std::max(oldest(), last_run_end); }
  };
  bool Ready(const Group& g, Clock::time_point now, bool flush) const;
  // Forgets the group at `it` once it holds no request and no run.
  void EraseIfIdle(std::map<std::vector<Shape>, Group>::iterator it);

  const BatchingOptions options_;
  std::map<std::vector<Shape>, Group> groups_;
  uint64_t next_sequence_ = 0;
};

}  // namespace qv
