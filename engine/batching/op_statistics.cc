#include "batching/op_statistics.h"

#include <algorithm>
#include <cmath>

namespace qv {

int DurationHistogram::BucketOf(uint64_t us) {
  if (us < kSubBuckets) return static_cast<int>(us);  // exact below 8 us
  int octave = 63;
  while ((us >> octave) == 0) --octave;
  const int shift = octave - 3;  // the 3 bits below the leading one pick the sub-bucket
  const int sub = static_cast<int>((us >> shift) & (kSubBuckets - 1));
  return std::min(kBuckets - 1, (octave - 2) * kSubBuckets + sub);
}

uint64_t DurationHistogram::UpperBoundOf(int bucket) {
  if (bucket < kSubBuckets) return static_cast<uint64_t>(bucket);
  const int octave = bucket / kSubBuckets + 2, sub = bucket % kSubBuckets;
  const int shift = octave - 3;
  // Values in the bucket have the leading bit `octave`, then `sub` in the next three bits.
  return ((uint64_t{kSubBuckets} + static_cast<uint64_t>(sub) + 1) << shift) - 1;
}

void DurationHistogram::Record(std::chrono::steady_clock::duration elapsed) {
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count();
  buckets_[BucketOf(static_cast<uint64_t>(std::max<int64_t>(us, 0)))].fetch_add(1, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
}

uint64_t DurationHistogram::PercentileUs(double fraction) const {
  uint64_t total = 0;
  std::array<uint64_t, kBuckets> counts;
  for (int b = 0; b < kBuckets; ++b) total += counts[b] = buckets_[b].load(std::memory_order_relaxed);
  if (total == 0) return 0;
  const auto wanted = static_cast<uint64_t>(std::ceil(fraction * static_cast<double>(total)));
  uint64_t seen = 0;
  for (int b = 0; b < kBuckets; ++b) {
    seen += counts[b];
    if (seen >= std::max<uint64_t>(wanted, 1)) return UpperBoundOf(b);
  }
  return UpperBoundOf(kBuckets - 1);
}

void OpStatistics::Ended(const Failure& ended) {
  switch (ended.status) {
    case Status::kOk: completed_.fetch_add(1, std::memory_order_relaxed); break;
    case Status::kCancelled: cancelled_.fetch_add(1, std::memory_order_relaxed); break;
    case Status::kDeadlineExceeded: deadline_exceeded_.fetch_add(1, std::memory_order_relaxed); break;
    default: failed_.fetch_add(1, std::memory_order_relaxed); break;
  }
}

void OpStatistics::Batched(int64_t rows, int64_t padded_rows, int64_t max_batch_size) {
  std::lock_guard<std::mutex> lock(batches_mu_);
  ++batches_;
  batch_rows_ += static_cast<uint64_t>(rows);
  padding_rows_ += static_cast<uint64_t>(padded_rows - rows);
  if (rows > max_batch_size)
    ++oversize_batches_;
  else
    ++batch_sizes_[rows];
}

OpStatistics::Snapshot OpStatistics::Read() const {
  Snapshot s;
  s.admitted = admitted_.load(std::memory_order_relaxed);
  s.rejected_busy = rejected_busy_.load(std::memory_order_relaxed);
  s.completed = completed_.load(std::memory_order_relaxed);
  s.failed = failed_.load(std::memory_order_relaxed);
  s.cancelled = cancelled_.load(std::memory_order_relaxed);
  s.deadline_exceeded = deadline_exceeded_.load(std::memory_order_relaxed);
  s.queue_wait_count = queue_wait_.count();
  s.queue_wait_p50_us = queue_wait_.PercentileUs(0.5);
  s.queue_wait_p90_us = queue_wait_.PercentileUs(0.9);
  s.queue_wait_p99_us = queue_wait_.PercentileUs(0.99);
  s.run_count = run_.count();
  s.run_p50_us = run_.PercentileUs(0.5);
  s.run_p90_us = run_.PercentileUs(0.9);
  s.run_p99_us = run_.PercentileUs(0.99);
  s.plans_compiled = plans_compiled_.load(std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(batches_mu_);
  s.batches = batches_;
  s.batch_rows = batch_rows_;
  s.padding_rows = padding_rows_;
  s.batch_sizes = batch_sizes_;
  s.oversize_batches = oversize_batches_;
  return s;
}

}  // namespace qv
