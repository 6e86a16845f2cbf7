// The one error type the engine throws. The C API turns it into a QvStatus and a message.
#pragma once

#include <new>
#include <stdexcept>
#include <string>

#include "quiver/c_api.h"

namespace qv {

class Error : public std::runtime_error {
 public:
  Error(QvStatus status, std::string message) : std::runtime_error(std::move(message)), status_(status) {}
  QvStatus status() const { return status_; }

 private:
  QvStatus status_;
};

// A failed computation as stored on an engine variable and reported by WaitToRead / OnReady.
struct Failure {
  QvStatus status = QV_OK;
  std::string message;
  bool ok() const { return status == QV_OK; }
};

// The failure that the exception being handled stands for; call inside a catch block.
inline Failure FailureFromCurrentException() {
  try {
    throw;
  } catch (const Error& e) {
    return {e.status(), e.what()};
  } catch (const std::bad_alloc&) {
    return {QV_ERR_OUT_OF_MEMORY, "out of memory while running an invocation"};
  } catch (const std::exception& e) {
    return {QV_ERR_INTERNAL, std::string("internal error: ") + e.what()};
  } catch (...) {
    return {QV_ERR_INTERNAL, "internal error: unknown exception"};
  }
}

// Throws Error(status, message) unless `condition` holds.
inline void Check(bool condition, QvStatus status, const std::string& message) {
  if (!condition) throw Error(status, message);
}

}  // namespace qv
