// The requests waiting for a run, grouped by their shapes beyond axis 0, in priority order (then
// arrival order) within a group. Decides which requests run together and when; holds no lock and
// starts no thread (BatchScheduler does both).
#pragma once

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
  bool empty() const { return groups_.empty(); }
  size_t size() const;

  // Removes and returns the requests that ended (cancelled, or past their deadline at `now`).
  std::vector<RequestPtr> TakeEnded(Clock::time_point now);
  // Removes and returns the next run's requests, or none: from a group holding max_batch_size rows
  // or whose oldest request has waited batch_timeout_us (or any group if `flush`), the one whose first
  // request has the highest priority (then the oldest). Takes requests in order while their rows fit
  // in max_batch_size (a larger first request runs alone).
  std::vector<RequestPtr> TakeBatch(Clock::time_point now, bool flush);
  // The earliest time TakeEnded (a deadline) or, if `runs_free`, TakeBatch may have something; false
  // if nothing is pending.
  bool NextEvent(bool runs_free, Clock::time_point* when) const;

 private:
  struct Group {
    std::vector<RequestPtr> requests;  // priority order, then arrival
    int64_t rows = 0;
    Clock::time_point oldest() const;
  };
  bool Ready(const Group& g, Clock::time_point now, bool flush) const;

  const BatchingOptions options_;
  std::map<std::vector<Shape>, Group> groups_;
  uint64_t next_sequence_ = 0;
};

}  // namespace qv
