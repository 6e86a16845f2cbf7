// How the drop-in reports failures: MXNet's convention (return -1, message in MXGetLastError) over
// exceptions thrown inside this library, so that nothing aborts where MXNet would LOG(FATAL).
#ifndef QUIVER_MXNET_COMPAT_ERRORS_H_
#define QUIVER_MXNET_COMPAT_ERRORS_H_

#include <exception>
#include <new>
#include <stdexcept>
#include <string>

namespace mxc {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Records the message MXGetLastError returns on this thread.
void SetLastError(const std::string& message);

// Throws Error("<what>: <Quiver's message>") when a Qv call failed.
void CheckQv(int status, const std::string& what);

// Throws Error(message) unless cond holds: where MXNet would CHECK and abort.
inline void Require(bool cond, const std::string& message) {
  if (!cond) throw Error(message);
}

// Runs body; any exception becomes -1 plus its message, as MXNet's API_BEGIN / API_END do.
template <typename Body>
int Guarded(const char* function, Body&& body) noexcept {
  try {
    body();
    return 0;
  } catch (const std::bad_alloc&) {
    SetLastError(std::string(function) + ": out of memory");
  } catch (const std::exception& e) {
    SetLastError(std::string(function) + ": " + e.what());
  } catch (...) {
    SetLastError(std::string(function) + ": unknown error");
  }
  return -1;
}

}  // namespace mxc

#endif  // QUIVER_MXNET_COMPAT_ERRORS_H_
