// UTF-8 checks for text that leaves the runtime: bindings turn names and messages into Java and Python
// strings, and JNI's NewStringUTF has undefined behaviour on malformed input.
#pragma once

#include <string>

namespace qv {

// True when `text` is well-formed UTF-8 (no overlong forms, surrogates or values past U+10FFFF).
bool IsValidUtf8(const std::string& text);

// `text` with every byte that does not start a well-formed sequence replaced by U+FFFD.
std::string ToValidUtf8(const std::string& text);

}  // namespace qv
