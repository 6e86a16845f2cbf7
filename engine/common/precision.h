// The arithmetic a cached op computes in (its `precision` flag). Inputs and outputs are float32 in
// every precision; reduced precisions change what the kernels compute with inside.
#pragma once

#include <string>

#include "common/error.h"

namespace qv {

enum class Precision {
  kFloat32,   // exact to MXNet's float32 results (the default)
  kBFloat16,  // convolutions, inner products and what follows them in bfloat16, accumulating in float32
  kInt8,      // quantized with a calibration table
  kAuto,      // the fastest the device runs natively; resolved by the backend at creation
};

inline const char* PrecisionName(Precision p) {
  switch (p) {
    case Precision::kFloat32: return "float32";
    case Precision::kBFloat16: return "bfloat16";
    case Precision::kInt8: return "int8";
    case Precision::kAuto: return "auto";
  }
  return "?";
}

// Flag `key`'s value as a precision; Status::kInvalidArgument naming the accepted spellings otherwise.
inline Precision ParsePrecision(const std::string& key, const std::string& value) {
  for (Precision p : {Precision::kFloat32, Precision::kBFloat16, Precision::kInt8, Precision::kAuto})
    if (value == PrecisionName(p)) return p;
  throw Error(Status::kInvalidArgument,
              "flag '" + key + "' = '" + value + "' must be one of float32, bfloat16, int8, auto");
}

}  // namespace qv
