// Element types, with MXNet's type-flag codes (the C API's QvDType uses the same numbers).
#pragma once

#include <cstddef>
#include <string>

#include "common/error.h"

namespace qv {

enum class DType : int {
  kFloat32 = 0,
  kFloat64 = 1,
  kFloat16 = 2,
  kUInt8 = 3,
  kInt32 = 4,
  kInt8 = 5,
  kInt64 = 6,
};

inline bool IsValidDType(int code) { return code >= static_cast<int>(DType::kFloat32) && code <= static_cast<int>(DType::kInt64); }

inline size_t DTypeSize(DType t) {
  switch (t) {
    case DType::kFloat32: return 4;
    case DType::kFloat64: return 8;
    case DType::kFloat16: return 2;
    case DType::kUInt8: return 1;
    case DType::kInt32: return 4;
    case DType::kInt8: return 1;
    case DType::kInt64: return 8;
  }
  return 0;
}

inline const char* DTypeName(DType t) {
  switch (t) {
    case DType::kFloat32: return "float32";
    case DType::kFloat64: return "float64";
    case DType::kFloat16: return "float16";
    case DType::kUInt8: return "uint8";
    case DType::kInt32: return "int32";
    case DType::kInt8: return "int8";
    case DType::kInt64: return "int64";
  }
  return "unknown";
}

// Converts a C API dtype code, failing with a message naming the code.
inline DType DTypeFromCode(int code) {
  Check(IsValidDType(code), Status::kInvalidArgument, "unknown dtype code " + std::to_string(code));
  return static_cast<DType>(code);
}

}  // namespace qv
