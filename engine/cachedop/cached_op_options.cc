#include "cachedop/cached_op_options.h"

#include <algorithm>
#include <optional>

#include "cachedop/input_dtypes.h"
#include "common/error.h"
#include "common/flags.h"

namespace qv {
namespace {

// A boolean flag's value as it may be spelled, or nothing.
std::optional<bool> BoolValue(const std::string& value) {
  if (value == "true" || value == "True" || value == "1") return true;
  if (value == "false" || value == "False" || value == "0") return false;
  return std::nullopt;
}

bool ParseBoolFlag(const std::string& key, const std::string& value) {
  const std::optional<bool> b = BoolValue(value);
  Check(b.has_value(), Status::kInvalidArgument, "flag '" + key + "' = '" + value + "' is not true or false");
  return *b;
}

// A boolean, or "required": a plan that cannot be recorded fails its invocations instead of launching
// its steps one by one (for tests that must know the graphs ran).
StepRecording ParseRecordingFlag(const std::string& key, const std::string& value) {
  if (value == "required") return StepRecording::kRequired;
  const std::optional<bool> b = BoolValue(value);
  Check(b.has_value(), Status::kInvalidArgument,
        "flag '" + key + "' = '" + value + "' is not true, false or required");
  return *b ? StepRecording::kPreferred : StepRecording::kOff;
}

// "data:(1,3,224,224);other:(2,5)"
std::map<std::string, Shape> ParseDataShapes(const std::string& text) {
  std::map<std::string, Shape> shapes;
  for (const std::string& part : FlagListParts(text)) {
    const auto bad = [&] {
      return Error(Status::kInvalidArgument, "flag 'data_shapes': cannot parse '" + part + "', expected name:(d0,d1,...)");
    };
    const size_t colon = part.find(':'), open = part.find('(', colon), close = part.rfind(')');
    if (colon == std::string::npos || colon == 0 || open == std::string::npos || close == std::string::npos ||
        close < open)
      throw bad();
    Shape shape;
    std::string dim;
    for (size_t i = open + 1; i <= close; ++i) {
      const char c = part[i];
      if (c == ',' || i == close) {
        if (!dim.empty()) shape.push_back(std::stoll(dim));
        dim.clear();
      } else if (c >= '0' && c <= '9' && dim.size() < 12) {
        dim += c;
      } else if (c != ' ') {
        throw bad();
      }
    }
    std::string name = part.substr(0, colon);
    name.erase(name.find_last_not_of(' ') + 1);
    name.erase(0, name.find_first_not_of(' '));
    shapes[name] = shape;
  }
  return shapes;
}

// A scheduling flag (batching_options.h), which BatchingOptions parses itself.
void ApplyBatching(CachedOpOptions& o, const char* key, const std::string& value) { o.batching.Parse(key, value); }

}  // namespace

const std::vector<CachedOpFlag>& CachedOpFlags() {
  static const std::vector<CachedOpFlag> flags = {
      {"device", "cpu", "cpu, cpu(0) or gpu(N): where the op runs",
       [](CachedOpOptions& o, const std::string& v) { o.device = ParseDevice(v); }},
      {"static_shape", "false", "true: the first invocation's input shapes are the only ones",
       [](CachedOpOptions& o, const std::string& v) { o.static_shape = ParseBoolFlag("static_shape", v); }},
      {"max_inflight", "64", "invocations admitted at once; one more fails with QV_ERR_BUSY",
       [](CachedOpOptions& o, const std::string& v) {
         o.max_inflight = static_cast<int>(ParseIntegerFlag("max_inflight", v, 1, 1000000));
       }},
      {"max_plans", "64", "compiled plans kept; past it the least recently used one not in use goes",
       [](CachedOpOptions& o, const std::string& v) {
         o.max_plans = static_cast<size_t>(ParseIntegerFlag("max_plans", v, 1, 1000000));
       }},
      {"data_shapes", "", "name:(d0,d1,...);...: plans compiled at creation",
       [](CachedOpOptions& o, const std::string& v) { o.data_shapes = ParseDataShapes(v); }},
      {"data_types", "", "name:int32;...: the element type an input takes",
       [](CachedOpOptions& o, const std::string& v) { o.data_types = ParseDataTypes(v); }},
      {"buckets", "", "32,64,128: sequence lengths compiled; a request runs padded to the next (bucketing.h)",
       [](CachedOpOptions& o, const std::string& v) { o.buckets.lengths = BucketOptions::ParseLengths(v); }},
      {"bucket_axis", "1", "the axis of the inputs that buckets pad",
       [](CachedOpOptions& o, const std::string& v) {
         o.buckets.axis = static_cast<int>(ParseIntegerFlag("bucket_axis", v, 0, 7));
       }},
      {"precision", "float32", "float32, bfloat16, int8 or auto: what the op computes in",
       [](CachedOpOptions& o, const std::string& v) { o.precision = ParsePrecision("precision", v); }},
      {"cuda_graphs", "true", "true, false or required: replay each gpu(N) plan as a CUDA graph",
       [](CachedOpOptions& o, const std::string& v) { o.backend.step_recording = ParseRecordingFlag("cuda_graphs", v); }},
      {"max_batch_size", "1", "rows merged along axis 0 into one run (a request queue)",
       [](CachedOpOptions& o, const std::string& v) { ApplyBatching(o, "max_batch_size", v); }},
      {"batch_timeout_us", "1000", "how long the oldest queued request waits for others (a request queue)",
       [](CachedOpOptions& o, const std::string& v) { ApplyBatching(o, "batch_timeout_us", v); }},
      {"instances", "auto", "batches of this op that run at once; auto: 1 on the CPU, 2 on a GPU (a request queue)",
       [](CachedOpOptions& o, const std::string& v) { ApplyBatching(o, "instances", v); }},
      {"max_queue", "1024", "requests queued and not yet running (a request queue)",
       [](CachedOpOptions& o, const std::string& v) { ApplyBatching(o, "max_queue", v); }},
  };
  return flags;
}

CachedOpOptions CachedOpOptions::Parse(const std::vector<std::pair<std::string, std::string>>& flags,
                                       bool thread_safe) {
  CachedOpOptions o;
  o.thread_safe = thread_safe;
  for (const auto& [key, value] : flags) {
    const auto& table = CachedOpFlags();
    const std::string& name = key;  // a lambda may not capture a structured binding before C++20
    const auto flag = std::find_if(table.begin(), table.end(), [&](const CachedOpFlag& f) { return name == f.name; });
    if (flag == table.end()) {
      std::string known;
      for (const auto& f : table) known += (known.empty() ? "" : ", ") + std::string(f.name);
      throw Error(Status::kInvalidArgument, "unknown flag '" + key + "' (known: " + known + ")");
    }
    flag->apply(o, value);
  }
  Check(!o.static_shape || o.batching.max_batch_size == 1, Status::kInvalidArgument,
        "flag 'max_batch_size' > 1 merges requests into new shapes, which 'static_shape' = 'true' forbids");
  Check(!o.static_shape || !o.buckets.enabled(), Status::kInvalidArgument,
        "flag 'buckets' compiles a plan per bucket, which 'static_shape' = 'true' forbids");
  Check(o.buckets.axis != 0 || o.batching.max_batch_size == 1, Status::kInvalidArgument,
        "flag 'bucket_axis' = '0' pads the batch axis, which 'max_batch_size' > 1 merges requests along");
  FindBackend(o.device).RequireDevice(o.device);
  return o;
}

}  // namespace qv
