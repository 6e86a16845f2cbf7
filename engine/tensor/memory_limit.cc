#include "tensor/memory_limit.h"

#include <cstdint>
#include <cstdlib>

namespace qv {

size_t ParseMemoryLimit(const char* text, size_t available) {
  if (text == nullptr) return SIZE_MAX;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (end == text || value == 0) return SIZE_MAX;
  if (*end == '%') {
    if (end[1] != '\0' || value > 100 || available == SIZE_MAX) return SIZE_MAX;
    return available / 100 * value;
  }
  int shift = 0;
  if (*end == 'K' || *end == 'k') shift = 10;
  else if (*end == 'M' || *end == 'm') shift = 20;
  else if (*end == 'G' || *end == 'g') shift = 30;
  if (shift != 0) ++end;
  if (*end != '\0' || value > (SIZE_MAX >> shift)) return SIZE_MAX;
  return static_cast<size_t>(value) << shift;
}

}  // namespace qv
