// The objects behind the C API's opaque handles, the tables of live handles, and the guard that turns
// exceptions into status codes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cachedop/cached_op.h"
#include "calibration/calibrator.h"
#include "quiver/c_api.h"
#include "common/error.h"
#include "graph/graph.h"
#include "handle_table.h"
#include "tensor/ndarray.h"

namespace qv::capi {

void Require(const void* pointer, const char* what);  // Status::kInvalidArgument naming it if null

// A list of names as the C API hands it out: pointers into strings that outlive the list.
class NameList {
 public:
  NameList() = default;
  explicit NameList(const std::vector<std::string>& names) {
    for (const auto& name : names) ptrs_.push_back(name.c_str());
  }
  // Sets *n and *names (both checked for NULL).
  void Publish(uint32_t* n, const char*** names) const {
    Require(n, "n");
    Require(names, "names");
    *n = static_cast<uint32_t>(ptrs_.size());
    *names = const_cast<const char**>(ptrs_.data());
  }

 private:
  std::vector<const char*> ptrs_;
};

}  // namespace qv::capi

// What a symbol or cached-op handle stands for (handle values are tokens: see handle_table.h).
struct QvSymbol_ {
  qv::Graph graph;
  std::vector<std::string> input_names, output_names;
  qv::capi::NameList inputs, outputs;
};

struct QvCachedOp_ {
  std::shared_ptr<qv::CachedOp> op;
  qv::capi::NameList inputs, outputs;  // into the op's own names
  std::string description;             // QvCachedOpDescribe's JSON, made once
};

struct QvCalibrator_ {
  std::unique_ptr<qv::Calibrator> calibrator;
  qv::capi::NameList inputs;
};

namespace qv::capi {

HandleTable<QvSymbolHandle, QvSymbol_>& Symbols();
HandleTable<QvCalibratorHandle, QvCalibrator_>& Calibrators();
HandleTable<QvNDArrayHandle, NDArray>& Arrays();
HandleTable<QvCachedOpHandle, QvCachedOp_>& CachedOps();

void SetLastError(const std::string& message);

QvNDArrayHandle NewHandle(NDArrayPtr array);
// The array behind a live handle (Status::kInvalidArgument naming `what` otherwise).
NDArrayPtr ArrayOf(QvNDArrayHandle h, const char* what);

// The public code for an engine status.
QvStatus ToQvStatus(Status status);
// Records a failure's message as the last error (if it is one) and returns its public code.
int ReportFailure(const Failure& failure);
int StatusFromCurrentException() noexcept;

// Runs `body`, returning QV_OK, or the status of what it threw (recording the message).
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
