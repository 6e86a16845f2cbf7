// Invariants every fuzz target checks on a failed call.
#pragma once

#include <initializer_list>
#include <string>

#include "quiver/c_api.h"

namespace quiver_fuzz {

// True when `text` is well-formed UTF-8 (bindings hand messages and names to Java and Python strings).
// Written apart from the engine's own check (common/utf8.h), so that it can judge it.
bool IsValidUtf8(const std::string& text);

// "" when `status` is one of `allowed` and `message` is a non-empty, valid UTF-8 explanation; else the
// problem, naming `call`.
std::string CheckFailure(const char* call, int status, const std::string& message,
                         std::initializer_list<int> allowed);

}  // namespace quiver_fuzz
