#include "common/utf8.h"
#include "handles.h"

namespace qv::capi {
thread_local std::string t_last_error;

// Messages quote bytes from files and callers; bindings need them as well-formed UTF-8.
void SetLastError(const std::string& message) { t_last_error = ToValidUtf8(message); }

QvStatus ToQvStatus(Status status) {
  switch (status) {
    case Status::kOk: return QV_OK;
    case Status::kInvalidArgument: return QV_ERR_INVALID_ARGUMENT;
    case Status::kNotFound: return QV_ERR_NOT_FOUND;
    case Status::kParse: return QV_ERR_PARSE;
    case Status::kShape: return QV_ERR_SHAPE;
    case Status::kUnsupported: return QV_ERR_UNSUPPORTED;
    case Status::kBusy: return QV_ERR_BUSY;
    case Status::kOutOfMemory: return QV_ERR_OUT_OF_MEMORY;
    case Status::kDevice: return QV_ERR_DEVICE;
    case Status::kInternal: return QV_ERR_INTERNAL;
    case Status::kCancelled: return QV_ERR_CANCELLED;
    case Status::kDeadlineExceeded: return QV_ERR_DEADLINE_EXCEEDED;
  }
  return QV_ERR_INTERNAL;
}

int ReportFailure(const Failure& failure) {
  if (!failure.ok()) SetLastError(failure.message);
  return ToQvStatus(failure.status);
}

int StatusFromCurrentException() noexcept {
  try {
    return ReportFailure(FailureFromCurrentException());
  } catch (...) {
    return QV_ERR_OUT_OF_MEMORY;  // the message itself could not be stored
  }
}

void Require(const void* pointer, const char* what) {
  if (pointer == nullptr) throw Error(Status::kInvalidArgument, std::string(what) + " is NULL");
}

}  // namespace qv::capi

extern "C" const char* QvGetLastError(void) { return qv::capi::t_last_error.c_str(); }
