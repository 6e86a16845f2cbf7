// UTF-8 checks for text that leaves the runtime: bindings turn names and messages into Java and Python
// strings, and JNI's NewStringUTF has undefined behaviour on malformed input.
#pragma once

#include <string>

namespace qv {

// True when `text` is well-formed UTF-8 (no overlong forms, surrogates or values past U+10FFFF).
bool IsValidUtf8(const std::string& text);

// At most `limit` bytes of `text`, cut at a character boundary, with "..." appended when cut (for
// quoting names and parser messages, which can be as long as a file, in errors).
std::string ShortenUtf8(const std::string& text, size_t limit);

// A name from a file as error messages quote it: in single quotes, shortened to 80 bytes.
std::string QuoteName(const std::string& name);

// `text` with every byte that does not start a well-formed sequence replaced by U+FFFD.
std::string ToValidUtf8(const std::string& text);

}  // namespace qv
