// A cached op's options and the grammar of the string flags they come from (QvCreateCachedOpEx): one
// table names every flag with its default and what it does, parses it, and words the "known flags"
// message, so that a flag is added in one place.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.h"
#include "batching/batching_options.h"
#include "cachedop/bucketing.h"
#include "common/device.h"
#include "common/dtype.h"
#include "common/precision.h"
#include "common/shape.h"

namespace qv {

struct CachedOpOptions {
  Device device;
  bool static_shape = false;
  int max_inflight = 64;
  size_t max_plans = 64;  // compiled plans kept (plan_cache.h)
  bool thread_safe = true;
  Precision precision = Precision::kFloat32;  // as asked; the op holds the backend's resolution of it
  std::map<std::string, Shape> data_shapes;  // plans to compile at creation
  std::map<std::string, DType> data_types;   // input element types other than the symbol's (input_dtypes.h)
  BatchingOptions batching;                   // the request queue, if a scheduling flag is given
  BucketOptions buckets;                      // sequence lengths requests are padded to, if any
  BackendOptions backend;                     // what only some devices act on (cuda_graphs)

  // From the C API's string flags; unknown keys and bad values throw Status::kInvalidArgument.
  static CachedOpOptions Parse(const std::vector<std::pair<std::string, std::string>>& flags, bool thread_safe);
};

// One flag: its name, its default as the C API documents it, one line on what it does, and how its
// value sets the options (throwing Status::kInvalidArgument, naming the flag, for a bad value).
struct CachedOpFlag {
  const char* name;
  const char* default_value;
  const char* help;
  std::function<void(CachedOpOptions&, const std::string& value)> apply;
};

// Every flag, in the order the C API documents them.
const std::vector<CachedOpFlag>& CachedOpFlags();

}  // namespace qv
