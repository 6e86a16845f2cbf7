#include "fuzz/fuzz_checks.h"

#include <algorithm>
#include <cstdint>

namespace quiver_fuzz {

bool IsValidUtf8(const std::string& text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char lead = byte(i);
    size_t extra = 0;
    uint32_t code = 0;
    if (lead < 0x80) {
      ++i;
      continue;
    } else if ((lead & 0xE0) == 0xC0) {
      extra = 1, code = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
      extra = 2, code = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
      extra = 3, code = lead & 0x07;
    } else {
      return false;
    }
    if (i + extra >= text.size()) return false;  // truncated sequence
    for (size_t k = 1; k <= extra; ++k) {
      if ((byte(i + k) & 0xC0) != 0x80) return false;
      code = (code << 6) | (byte(i + k) & 0x3F);
    }
    // Overlong forms, UTF-16 surrogates and values past U+10FFFF are not UTF-8.
    static const uint32_t kMinForLength[] = {0, 0x80, 0x800, 0x10000};
    if (code < kMinForLength[extra] || (code >= 0xD800 && code <= 0xDFFF) || code > 0x10FFFF) return false;
    i += extra + 1;
  }
  return true;
}

std::string CheckFailure(const char* call, int status, const std::string& message,
                         std::initializer_list<int> allowed) {
  const std::string where = std::string(call) + " returned status " + std::to_string(status);
  if (std::find(allowed.begin(), allowed.end(), status) == allowed.end())
    return where + ", which this input must never cause: " + message;
  if (message.empty()) return where + " with an empty message";
  if (!IsValidUtf8(message)) return where + " with a message that is not valid UTF-8: " + message;
  return "";
}

}  // namespace quiver_fuzz
