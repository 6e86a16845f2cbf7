#include "common/utf8.h"

#include <cstdint>

namespace qv {
namespace {

// Length of the well-formed sequence starting at text[i], or 0 if none starts there.
size_t SequenceLength(const std::string& text, size_t i) {
  const auto at = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
  const uint8_t lead = at(i);
  if (lead < 0x80) return 1;
  size_t extra;
  uint32_t code;
  if ((lead & 0xE0) == 0xC0) {
    extra = 1, code = lead & 0x1Fu;
  } else if ((lead & 0xF0) == 0xE0) {
    extra = 2, code = lead & 0x0Fu;
  } else if ((lead & 0xF8) == 0xF0) {
    extra = 3, code = lead & 0x07u;
  } else {
    return 0;
  }
  if (text.size() - i <= extra) return 0;
  for (size_t k = 1; k <= extra; ++k) {
    if ((at(i + k) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (at(i + k) & 0x3Fu);
  }
  static const uint32_t kSmallest[] = {0, 0x80, 0x800, 0x10000};  // shorter forms are overlong
  if (code < kSmallest[extra] || (code >= 0xD800 && code <= 0xDFFF) || code > 0x10FFFF) return 0;
  return extra + 1;
}

}  // namespace

bool IsValidUtf8(const std::string& text) {
  for (size_t i = 0; i < text.size();) {
    const size_t n = SequenceLength(text, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string ToValidUtf8(const std::string& text) {
  if (IsValidUtf8(text)) return text;
  std::string out;
  out.reserve(text.size() + 8);
  for (size_t i = 0; i < text.size();) {
    const size_t n = SequenceLength(text, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(text, i, n);
      i += n;
    }
  }
  return out;
}

std::string ShortenUtf8(const std::string& text, size_t limit) {
  if (text.size() <= limit) return text;
  while (limit > 0 && (static_cast<uint8_t>(text[limit]) & 0xC0) == 0x80) --limit;  // not mid-character
  return text.substr(0, limit) + "...";
}

std::string QuoteName(const std::string& name) { return "'" + ShortenUtf8(name, 80) + "'"; }

}  // namespace qv
