// What a cached op has done since it was created, counted as it happens and read at any time
// (QvCachedOpGetStats): requests by how they ended, the time they waited in the request queue and the
// time their runs took (as percentiles), the batches formed and their padding, and the plans compiled.
// Counting takes a few relaxed atomic increments per request and never a lock on the invocation path
// (a batch takes one, to count its size). Thread-safe.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>

#include "common/error.h"

namespace qv {

// Durations in microseconds, counted into buckets an eighth of a power of two wide: a percentile is
// read back within 12.5% of the value recorded.
class DurationHistogram {
 public:
  void Record(std::chrono::steady_clock::duration elapsed);
  uint64_t count() const { return count_.load(std::memory_order_relaxed); }
  // The smallest bucket bound below which `fraction` (0..1] of the recorded durations fall, in
  // microseconds; 0 when nothing was recorded.
  uint64_t PercentileUs(double fraction) const;

 private:
  static constexpr int kSubBuckets = 8;
  static constexpr int kBuckets = 64 * kSubBuckets;
  static int BucketOf(uint64_t us);
  static uint64_t UpperBoundOf(int bucket);

  std::array<std::atomic<uint64_t>, kBuckets> buckets_{};
  std::atomic<uint64_t> count_{0};
};

class OpStatistics {
 public:
  // A consistent-enough copy for reporting (each field is read once; fields may be a request apart).
  struct Snapshot {
    uint64_t admitted = 0, rejected_busy = 0;
    uint64_t completed = 0, failed = 0, cancelled = 0, deadline_exceeded = 0;
    uint64_t queue_wait_count = 0, queue_wait_p50_us = 0, queue_wait_p90_us = 0, queue_wait_p99_us = 0;
    uint64_t run_count = 0, run_p50_us = 0, run_p90_us = 0, run_p99_us = 0;
    uint64_t batches = 0, batch_rows = 0, padding_rows = 0;
    std::map<int64_t, uint64_t> batch_sizes;  // requests' rows per batch (at most max_batch_size) -> batches
    uint64_t oversize_batches = 0;            // batches of one request over max_batch_size, run alone
    uint64_t plans_compiled = 0;
  };

  void Admitted() { admitted_.fetch_add(1, std::memory_order_relaxed); }
  void RejectedBusy() { rejected_busy_.fetch_add(1, std::memory_order_relaxed); }
  // A request ended, reporting `ended`.
  void Ended(const Failure& ended);
  void QueueWaited(std::chrono::steady_clock::duration waited) { queue_wait_.Record(waited); }
  void Ran(std::chrono::steady_clock::duration took) { run_.Record(took); }
  // A batch of `rows` requests' rows ran padded to `padded_rows`. Batches over `max_batch_size` (one
  // request too large to share a run) are counted together, so that a request's row count cannot add
  // a series of its own: batch_sizes has at most max_batch_size entries.
  void Batched(int64_t rows, int64_t padded_rows, int64_t max_batch_size);
  void PlanCompiled() { plans_compiled_.fetch_add(1, std::memory_order_relaxed); }

  Snapshot Read() const;

 private:
  std::atomic<uint64_t> admitted_{0}, rejected_busy_{0};
  std::atomic<uint64_t> completed_{0}, failed_{0}, cancelled_{0}, deadline_exceeded_{0};
  std::atomic<uint64_t> plans_compiled_{0};
  DurationHistogram queue_wait_, run_;
  mutable std::mutex batches_mu_;
  uint64_t batches_ = 0, batch_rows_ = 0, padding_rows_ = 0, oversize_batches_ = 0;  // guarded by batches_mu_
  std::map<int64_t, uint64_t> batch_sizes_;                    // guarded by batches_mu_
};

}  // namespace qv
