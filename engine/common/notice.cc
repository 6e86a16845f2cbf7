#include "common/notice.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace qv {
namespace {

bool NoticesWanted() {
  static const bool wanted = [] {
    const char* value = std::getenv("QUIVER_VERBOSE");
    return value != nullptr && *value != '\0' && std::strcmp(value, "0") != 0;
  }();
  return wanted;
}

}  // namespace

void Notice(const std::string& message) noexcept {
  if (!NoticesWanted()) return;
  try {
    const std::string line = "quiver: " + message + "\n";
    std::fwrite(line.data(), 1, line.size(), stderr);
  } catch (...) {
    // Out of memory for the line: a notice is not worth failing for.
  }
}

}  // namespace qv
