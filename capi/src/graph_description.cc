#include "graph_description.h"

#include <nlohmann/json.hpp>

#include "graph/graph_check.h"

namespace qv::capi {

std::string DescribeGraph(const Graph& graph) {
  nlohmann::json nodes = nlohmann::json::array();
  for (int id : TopologicalOrder(graph)) {
    const Node& node = graph.nodes[id];
    if (node.is_variable()) continue;
    nlohmann::json fused = nlohmann::json::array();
    for (const FusedNode& f : node.fused) fused.push_back({{"name", f.name}, {"op", f.op}});
    nodes.push_back({{"name", node.name}, {"op", node.op}, {"fused", std::move(fused)}});
  }
  // Names are bytes from the model file: invalid UTF-8 becomes U+FFFD rather than failing.
  return nlohmann::json{{"nodes", std::move(nodes)}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace qv::capi
