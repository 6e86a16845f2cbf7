// QvCachedOpDescribe's JSON: the nodes a cached op runs, each with the file's nodes fused into it.
#pragma once

#include <string>

#include "graph/graph.h"

namespace qv::capi {

// {"nodes": [{"name", "op", "fused": [{"name", "op"}, ...]}, ...]}: operator nodes in execution order.
std::string DescribeGraph(const Graph& graph);

}  // namespace qv::capi
