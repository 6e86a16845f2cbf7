// Parsing of the C API's string flags (QvCreateCachedOpEx's keys and values).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

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

// The parts of a list flag ("a:(1,2);b:(3)", "tokens:int32;length:int32"), split at ';'.
inline std::vector<std::string> FlagListParts(const std::string& text) {
  std::vector<std::string> parts;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find(';', start);
    if (end == std::string::npos) end = text.size();
    parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

}  // namespace qv
