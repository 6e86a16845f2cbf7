#include <vector>

#include "fuzz/fuzz_checks.h"
#include "fuzz/fuzz_targets.h"

namespace quiver_fuzz {

std::string FuzzParams(const uint8_t* data, size_t size) {
  // A copy of exactly `size` bytes, so that reading past the end is caught by AddressSanitizer.
  const std::vector<uint8_t> bytes(data, data + size);
  uint32_t n = 0, n_names = 0;
  QvNDArrayHandle* arrays = nullptr;
  const char** names = nullptr;
  const int status = QvNDArrayLoadFromBuffer(bytes.empty() ? "" : static_cast<const void*>(bytes.data()),
                                             bytes.size(), &n, &arrays, &n_names, &names);
  if (status != QV_OK)
    return CheckFailure("QvNDArrayLoadFromBuffer", status, QvGetLastError(),
                        {QV_ERR_PARSE, QV_ERR_UNSUPPORTED, QV_ERR_OUT_OF_MEMORY});
  std::string problem;
  if (n_names != 0 && n_names != n) problem = "the load returned a name count that differs from the array count";
  for (uint32_t i = 0; i < n_names && problem.empty(); ++i)
    if (!IsValidUtf8(names[i])) problem = "a loaded name is not valid UTF-8";
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t ndim = 0;
    const int64_t* shape = nullptr;
    int dtype = -1;
    if (QvNDArrayGetShape(arrays[i], &ndim, &shape) != QV_OK || QvNDArrayGetDType(arrays[i], &dtype) != QV_OK)
      problem = std::string("a loaded array cannot be inspected: ") + QvGetLastError();
    for (uint32_t d = 0; d < ndim && problem.empty(); ++d)
      if (shape[d] < 0) problem = "a loaded array has a negative dimension";
    if (QvNDArrayFree(arrays[i]) != QV_OK) problem = std::string("QvNDArrayFree failed: ") + QvGetLastError();
  }
  return problem;
}

}  // namespace quiver_fuzz
