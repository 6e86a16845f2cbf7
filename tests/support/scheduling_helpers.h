// Helpers for the C API suites that submit concurrently (tests/capi/concurrency_test.cc, batching_test.cc,
// cancellation_test.cc): submitting with QvInvokeAsyncEx, waiting with a status, timing, and comparing results.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "quiver/c_api.h"
#include "support/tiny_model.h"

namespace quiver_test {

using Clock = std::chrono::steady_clock;

inline double MillisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

inline QvInvokeOptions InvokeOptions(int64_t deadline_us = 0, int32_t priority = 0) {
  QvInvokeOptions o;
  std::memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.deadline_us = deadline_us;
  o.priority = priority;
  return o;
}

// Submits one input; the single output (the caller's), or throws with the runtime's message.
inline QvNDArrayHandle Submit(QvCachedOpHandle op, QvNDArrayHandle input, const QvInvokeOptions* options = nullptr) {
  uint32_t n = 0;
  QvNDArrayHandle* outputs = nullptr;
  const int status = QvInvokeAsyncEx(op, 1, &input, &n, &outputs, options);
  if (status != QV_OK)
    throw std::runtime_error(std::string("QvInvokeAsyncEx: ") + StatusName(status) + ": " + QvGetLastError());
  return outputs[0];
}

// Waits for `output`; its status, and its contents when that is QV_OK. Frees it.
inline int Collect(QvNDArrayHandle output, std::vector<float>* values) {
  int status = QvNDArrayWaitToRead(output);
  if (status == QV_OK) {
    values->resize(ElementCount(output));
    status = QvNDArraySyncCopyToCPU(output, values->data(), values->size() * sizeof(float));
  }
  QvNDArrayFree(output);
  return status;
}

inline float MaxAbs(const std::vector<float>& v) {
  float m = 0;
  for (float x : v) m = std::max(m, std::fabs(x));
  return m;
}

inline float MaxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return INFINITY;
  float m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(a[i] - b[i]));
  return m;
}

inline bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace quiver_test
