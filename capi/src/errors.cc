#include <new>

#include <oneapi/dnnl/dnnl.hpp>

#include "common/utf8.h"
#include "handles.h"

namespace qv::capi {
thread_local std::string t_last_error;

// Messages quote bytes from files and callers; bindings need them as well-formed UTF-8.
void SetLastError(const std::string& message) { t_last_error = ToValidUtf8(message); }

int StatusFromCurrentException() noexcept {
  try {
    throw;
  } catch (const Error& e) {
    SetLastError(e.what());
    return e.status();
  } catch (const std::bad_alloc&) {
    SetLastError("out of memory");
    return QV_ERR_OUT_OF_MEMORY;
  } catch (const dnnl::error& e) {
    SetLastError(std::string("oneDNN error: ") + e.what());
    return QV_ERR_INTERNAL;
  } catch (const std::exception& e) {
    SetLastError(std::string("internal error: ") + e.what());
    return QV_ERR_INTERNAL;
  } catch (...) {
    SetLastError("internal error: unknown exception");
    return QV_ERR_INTERNAL;
  }
}

void Require(const void* pointer, const char* what) {
  if (pointer == nullptr) throw Error(QV_ERR_INVALID_ARGUMENT, std::string(what) + " is NULL");
}

}  // namespace qv::capi

extern "C" const char* QvGetLastError(void) { return qv::capi::t_last_error.c_str(); }
