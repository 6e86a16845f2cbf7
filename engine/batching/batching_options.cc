#include "batching/batching_options.h"

#include <algorithm>

#include "common/flags.h"

namespace qv {

bool BatchingOptions::Parse(const std::string& key, const std::string& value) {
  if (key == "max_batch_size") {
    max_batch_size = static_cast<int>(ParseIntegerFlag(key, value, 1, 4096));
  } else if (key == "batch_timeout_us") {
    batch_timeout_us = ParseIntegerFlag(key, value, 0, 60000000);
  } else if (key == "instances") {
    instances = value == "auto" ? 0 : static_cast<int>(ParseIntegerFlag(key, value, 1, 256));
  } else if (key == "max_queue") {
    max_queue = static_cast<int>(ParseIntegerFlag(key, value, 1, 1000000));
  } else {
    return false;
  }
  enabled = true;
  return true;
}

int64_t BatchingOptions::PaddedRows(int64_t rows) const {
  if (rows >= max_batch_size) return rows;
  int64_t padded = 1;
  while (padded < rows) padded *= 2;
  return std::min<int64_t>(padded, max_batch_size);
}

}  // namespace qv
