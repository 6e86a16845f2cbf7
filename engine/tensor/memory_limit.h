// QUIVER_MEMORY_LIMIT's forms: bytes, bytes with a K, M or G suffix (powers of 1024), or a share of
// what the process may use ("75%": quiver serve's default, leaving the rest for requests in decoding).
#pragma once

#include <cstddef>

namespace qv {

// The limit `text` names, given the `available` bytes a share is taken of; SIZE_MAX for null or
// anything unreadable (0, a share outside 1-100%, an unknown suffix, an overflow).
size_t ParseMemoryLimit(const char* text, size_t available);

}  // namespace qv
