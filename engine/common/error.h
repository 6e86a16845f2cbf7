// The one error type the engine throws, and the engine's own status codes. The C API maps them to its
// public QvStatus in one place (capi/src/errors.cc); nothing in the engine sees the C header.
#pragma once

#include <new>
#include <stdexcept>
#include <string>

namespace qv {

enum class Status {
  kOk,
  kInvalidArgument,  // a bad flag, a wrong count, a null where a value is needed
  kNotFound,         // a missing file, parameter or name
  kParse,            // malformed symbol JSON or .params bytes
  kShape,            // shapes or dtypes that do not fit the graph
  kUnsupported,      // an operator, dtype, device or file version the engine does not run
  kBusy,             // an admission limit is full
  kOutOfMemory,      // an allocation failed or a size exceeds what can be allocated
  kDevice,           // a device that is missing or failed
  kInternal,         // a bug
  kCancelled,        // the invocation was cancelled
  kDeadlineExceeded  // the invocation's deadline passed before it finished
};

class Error : public std::runtime_error {
 public:
  Error(Status status, std::string message) : std::runtime_error(std::move(message)), status_(status) {}
  Status status() const { return status_; }

 private:
  Status status_;
};

// A failed computation as stored on an engine variable and reported by WaitToRead / OnReady.
struct Failure {
  Status status = Status::kOk;
  std::string message;
  bool ok() const { return status == Status::kOk; }
};

// Throws `f` as an Error unless it is ok: the way back from FailureFromCurrentException.
inline void ThrowIfFailed(const Failure& f) {
  if (!f.ok()) throw Error(f.status, f.message);
}

// The failure that the exception being handled stands for; call inside a catch block. The only place
// that turns exceptions into statuses: backends translate their libraries' exceptions into Error
// where they call them.
inline Failure FailureFromCurrentException() {
  try {
    throw;
  } catch (const Error& e) {
    return {e.status(), e.what()};
  } catch (const std::bad_alloc&) {
    return {Status::kOutOfMemory, "out of memory"};
  } catch (const std::exception& e) {
    return {Status::kInternal, std::string("internal error: ") + e.what()};
  } catch (...) {
    return {Status::kInternal, "internal error: unknown exception"};
  }
}

// Throws Error(status, message) unless `condition` holds.
inline void Check(bool condition, Status status, const std::string& message) {
  if (!condition) throw Error(status, message);
}

}  // namespace qv
