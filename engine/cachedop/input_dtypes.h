// The element type each data input of a cached op takes, fixed at creation: the `data_types` flag's,
// else the one the symbol declares (MXNet's "__dtype__" on the variable, as `mx.sym.var(name,
// dtype=...)` writes it), else float32. Invocations must pass exactly that type; the bindings convert.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/dtype.h"
#include "graph/bound_graph.h"

namespace qv {

struct InputDType {
  enum class Source { kDefault, kSymbol, kFlag };
  DType dtype = DType::kFloat32;
  Source source = Source::kDefault;
};

// Flag `data_types`: "name:int32;other:int64" (any of float32, float64, float16, uint8, int8, int32,
// int64). Throws Status::kInvalidArgument naming the part it cannot parse.
std::map<std::string, DType> ParseDataTypes(const std::string& text);

// One entry per data input, in invoke order. Throws Status::kNotFound for a flag naming no data input
// and Status::kInvalidArgument for a "__dtype__" that is no MXNet dtype code.
std::vector<InputDType> ResolveInputDTypes(const BoundGraph& graph, const std::map<std::string, DType>& flag);

// Writes each input's dtype into its variable's "__dtype__" (MXNet's code), where graph passes read it.
void RecordInputDTypes(BoundGraph& graph, const std::vector<InputDType>& dtypes);

// Throws Status::kShape when `actual` is not what input `name` takes, saying where that type came from.
void CheckInputDType(const std::string& name, DType actual, const InputDType& expected);

}  // namespace qv
