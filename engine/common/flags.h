// Parsing of the C API's string flags (QvCreateCachedOpEx's keys and values).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/error.h"

namespace qv {

// The integer `value` of flag `key`; Status::kInvalidArgument naming both unless it is a whole decimal
// number in [min, max].
inline int64_t ParseIntegerFlag(const std::string& key, const std::string& value, int64_t min, int64_t max) {
  char* end = nullptr;
  const long long n = std::strtoll(value.c_str(), &end, 10);
  Check(!value.empty() && *end == '\0' && n >= min && n <= max, Status::kInvalidArgument,
        "flag '" + key + "' = '" + value + "' must be an integer between " + std::to_string(min) + " and " +
            std::to_string(max));
  return n;
}

}  // namespace qv
