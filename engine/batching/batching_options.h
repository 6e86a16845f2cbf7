// The scheduling flags of a cached op (max_batch_size, batch_timeout_us, instances, max_queue). Any
// of them gives the op a request queue; without them the op runs exactly as it always did.
#pragma once

#include <cstdint>
#include <string>

namespace qv {

struct BatchingOptions {
  bool enabled = false;  // a scheduling flag was given
  int max_batch_size = 1;
  int64_t batch_timeout_us = 1000;
  // Batches that run at once; 0: the device's default (BatchScheduler: 1 where a batch holds an engine
  // worker and every compute thread, 2 where it completes asynchronously, on a GPU, so the next batch
  // forms and gathers its inputs while the device runs one).
  int instances = 0;
  int max_queue = 1024;

  // Takes one flag; false if `key` is not a scheduling flag. Throws Status::kInvalidArgument for a
  // value out of range.
  bool Parse(const std::string& key, const std::string& value);

  // The rows one run is compiled for when `rows` requests' rows are merged: the next power of two,
  // or max_batch_size (never below `rows`: a request larger than max_batch_size runs alone).
  int64_t PaddedRows(int64_t rows) const;
};

}  // namespace qv
