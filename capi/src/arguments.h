// Reading the argument lists several C API calls share: named parameters and string flags.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "handles.h"

namespace qv::capi {

// The parameters by name, each after its pending writes finish (the callee copies their contents).
std::map<std::string, NDArrayPtr> NamedParams(uint32_t num_params, const char** param_names, QvNDArrayHandle* params);

// The flags as key/value pairs.
std::vector<std::pair<std::string, std::string>> Flags(int num_flags, const char** keys, const char** vals);

}  // namespace qv::capi
