// What the C API's opaque handles point to, and the guard that turns exceptions into status codes.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "cachedop/cached_op.h"
#include "common/error.h"
#include "graph/graph.h"
#include "tensor/ndarray.h"

struct QvSymbol_ {
  qv::Graph graph;
  std::vector<std::string> input_names, output_names;
  std::vector<const char*> input_ptrs, output_ptrs;
};

// Reference-counted so that an OnReady callback can be handed the caller's own handle even if the
// caller frees it before the callback runs.
struct QvNDArray_ {
  std::atomic<int> refs{1};
  qv::NDArrayPtr array;
};

struct QvCachedOp_ {
  std::shared_ptr<qv::CachedOp> op;
  std::vector<const char*> input_ptrs, output_ptrs;
};

namespace qv::capi {

void SetLastError(const std::string& message);

// Runs `body`, returning QV_OK, or the status of what it threw (recording the message).
template <typename Body>
int Guard(Body&& body) noexcept;

void Require(const void* pointer, const char* what);  // QV_ERR_INVALID_ARGUMENT naming it if null

QvNDArrayHandle NewHandle(NDArrayPtr array);
void RetainHandle(QvNDArrayHandle h);
void ReleaseHandle(QvNDArrayHandle h);
const NDArrayPtr& ArrayOf(QvNDArrayHandle h, const char* what);

int StatusFromCurrentException() noexcept;

template <typename Body>
int Guard(Body&& body) noexcept {
  try {
    body();
    return QV_OK;
  } catch (...) {
    return StatusFromCurrentException();
  }
}

}  // namespace qv::capi
