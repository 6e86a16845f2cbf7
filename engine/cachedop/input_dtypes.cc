#include "cachedop/input_dtypes.h"

#include <set>

#include "common/error.h"
#include "common/flags.h"
#include "ops/input_to_float32.h"

namespace qv {
namespace {

DType DTypeNamed(const std::string& name, const std::string& context) {
  for (int code = 0; IsValidDType(code); ++code)
    if (name == DTypeName(static_cast<DType>(code))) return static_cast<DType>(code);
  throw Error(Status::kInvalidArgument, context + ": unknown dtype '" + name +
                                            "' (known: float32, float64, float16, uint8, int8, int32, int64)");
}

}  // namespace

std::map<std::string, DType> ParseDataTypes(const std::string& text) {
  std::map<std::string, DType> types;
  for (const std::string& part : FlagListParts(text)) {
    const size_t colon = part.find(':');
    Check(colon != std::string::npos && colon > 0 && colon + 1 < part.size(), Status::kInvalidArgument,
          "flag 'data_types': cannot parse '" + part + "', expected name:dtype");
    const std::string name = part.substr(0, colon);
    Check(types.count(name) == 0, Status::kInvalidArgument, "flag 'data_types' names '" + name + "' twice");
    types[name] = DTypeNamed(part.substr(colon + 1), "flag 'data_types', input '" + name + "'");
  }
  return types;
}

std::vector<InputDType> ResolveInputDTypes(const BoundGraph& graph, const std::map<std::string, DType>& flag) {
  const std::set<std::string> inputs(graph.input_names.begin(), graph.input_names.end());
  for (const auto& [name, dtype] : flag)
    Check(inputs.count(name) > 0, Status::kNotFound, "flag 'data_types' names '" + name + "', which is not a data input");
  std::vector<InputDType> types;
  for (size_t i = 0; i < graph.data_inputs.size(); ++i) {
    const std::string& name = graph.input_names[i];
    InputDType t;
    const auto& attrs = graph.graph.nodes[graph.data_inputs[i]].attrs;
    if (auto it = flag.find(name); it != flag.end()) {
      t = {it->second, InputDType::Source::kFlag};
    } else if (auto declared = attrs.find("__dtype__"); declared != attrs.end()) {
      int code = -1;
      try {
        code = std::stoi(declared->second);
      } catch (const std::exception&) {
      }
      Check(IsValidDType(code), Status::kInvalidArgument,
            "input '" + name + "' declares __dtype__ '" + declared->second + "', which is no MXNet dtype code");
      t = {static_cast<DType>(code), InputDType::Source::kSymbol};
    }
    Check(IsInputDType(t.dtype), Status::kUnsupported,
          "input '" + name + "' takes " + DTypeName(t.dtype) +
              ", which Quiver does not take as an input (float32, float64, uint8, int8, int32 or int64)");
    types.push_back(t);
  }
  return types;
}

void RecordInputDTypes(BoundGraph& graph, const std::vector<InputDType>& dtypes) {
  for (size_t i = 0; i < dtypes.size(); ++i)
    graph.graph.nodes[graph.data_inputs[i]].attrs["__dtype__"] = std::to_string(static_cast<int>(dtypes[i].dtype));
}

void CheckInputDType(const std::string& name, DType actual, const InputDType& expected) {
  if (actual == expected.dtype) return;
  const char* why = expected.source == InputDType::Source::kFlag     ? "as flag 'data_types' says"
                    : expected.source == InputDType::Source::kSymbol ? "as the model's symbol declares"
                                                                     : "the default; flag 'data_types' sets another";
  throw Error(Status::kShape, "input '" + name + "' is " + DTypeName(actual) + ", but the model takes " +
                                  DTypeName(expected.dtype) + " there (" + why + ")");
}

}  // namespace qv
