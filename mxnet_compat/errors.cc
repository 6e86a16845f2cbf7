// MXGetLastError / NNGetLastError / MXGetVersion. MXNet keeps one message per thread for both
// error functions (MXGetLastError forwards to NNGetLastError); so does this library.
#include "errors.h"

#include "mx_abi.h"
#include "quiver/c_api.h"

namespace mxc {
namespace {
thread_local std::string last_error;
}  // namespace

void SetLastError(const std::string& message) { last_error = message; }

void CheckQv(int status, const std::string& what) {
  if (status != QV_OK) throw Error(what + ": " + QvGetLastError());
}

}  // namespace mxc

const char* MXGetLastError() { return mxc::last_error.c_str(); }

const char* NNGetLastError() { return mxc::last_error.c_str(); }

// Programs compare against MXNET_VERSION (major * 10000 + minor * 100 + patch): this library stands
// in for 1.9.1, whose API it implements.
int MXGetVersion(int* out) {
  return mxc::Guarded(__func__, [&] {
    mxc::Require(out != nullptr, "out is NULL");
    *out = 10901;
  });
}
