// Notices: a line saying where the runtime does something otherwise than it was asked to, and why
// (a plan that cannot be recorded as a CUDA graph launches its steps one by one). The C API promises
// to print nothing on its own, so notices are written only when the environment variable
// QUIVER_VERBOSE is set to anything but "" or "0" (read once per process).
#pragma once

#include <string>

namespace qv {

// Writes "quiver: <message>" and a newline to stderr when QUIVER_VERBOSE asks for notices, in one
// fwrite (stdio locks the stream for it), so that lines of several threads never interleave. Never
// throws.
void Notice(const std::string& message) noexcept;

}  // namespace qv
