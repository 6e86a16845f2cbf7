#include "batching/op_statistics.h"

#include <catch2/catch.hpp>

using namespace qv;
using std::chrono::microseconds;

TEST_CASE("duration percentiles are within 12.5% of the true value, exact below 8 us", "[batching][stats]") {
  DurationHistogram h;
  CHECK(h.PercentileUs(0.5) == 0);
  for (int us = 1; us <= 1000; ++us) h.Record(microseconds(us));
  CHECK(h.count() == 1000);
  for (double q : {0.5, 0.9, 0.99}) {
    const double truth = q * 1000;
    const auto got = static_cast<double>(h.PercentileUs(q));
    INFO("q " << q << ": " << got << " for " << truth);
    CHECK(got >= truth);
    CHECK(got <= truth * 1.125 + 1);
  }
  DurationHistogram small;
  for (int us : {3, 3, 5, 7}) small.Record(microseconds(us));
  CHECK(small.PercentileUs(0.5) == 3);
  CHECK(small.PercentileUs(1.0) == 7);
  DurationHistogram huge;
  huge.Record(std::chrono::hours(24 * 365));  // a year: the last buckets still hold it
  CHECK(huge.PercentileUs(1.0) >= uint64_t{365} * 24 * 3600 * 1000000);
}

TEST_CASE("requests are counted by how they ended; batches by size and padding", "[batching][stats]") {
  OpStatistics s;
  s.Admitted();
  s.Admitted();
  s.Admitted();
  s.Admitted();
  s.RejectedBusy();
  s.Ended({});
  s.Ended({Status::kCancelled, "c"});
  s.Ended({Status::kDeadlineExceeded, "d"});
  s.Ended({Status::kShape, "s"});
  s.Batched(3, 4, 8);
  s.Batched(3, 4, 8);
  s.Batched(8, 8, 8);
  s.Batched(9, 9, 8);  // one request over max_batch_size, and another: one count, no new sizes
  s.Batched(1000, 1000, 8);
  const OpStatistics::Snapshot r = s.Read();
  CHECK(r.admitted == 4);
  CHECK(r.rejected_busy == 1);
  CHECK(r.completed == 1);
  CHECK(r.cancelled == 1);
  CHECK(r.deadline_exceeded == 1);
  CHECK(r.failed == 1);
  CHECK(r.batches == 5);
  CHECK(r.batch_rows == 1023);
  CHECK(r.padding_rows == 2);
  CHECK(r.batch_sizes == std::map<int64_t, uint64_t>{{3, 2}, {8, 1}});
  CHECK(r.oversize_batches == 2);
}
