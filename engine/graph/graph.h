// The graph IR: MXNet's node list, as read from symbol JSON.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ops/attrs.h"
#include "ops/post_ops.h"

namespace qv {

// Output `index` of node `node`.
struct NodeEntry {
  int node = 0;
  int index = 0;
  bool operator==(const NodeEntry& o) const { return node == o.node && index == o.index; }
  bool operator<(const NodeEntry& o) const { return node != o.node ? node < o.node : index < o.index; }
};

struct Graph;

// A node of the file's graph that graph passes merged into another (see Node::fused).
struct FusedNode {
  std::string op;  // canonical operator name
  std::string name;
};

struct Node {
  std::string op;  // canonical operator name (CanonicalOpName); "null" for a variable (a data input or a parameter)
  std::string name;
  // Operator parameters and MXNet's hidden attributes ("__shape__", "__dtype__", ...), merged from the
  // "attrs", "attr" and "param" keys of whichever layout the file uses.
  std::map<std::string, std::string> attrs;
  std::vector<NodeEntry> inputs;
  // Operations graph passes fused into this node, in execution order (a kSum adds the residual input).
  std::vector<PostOp> post_ops;
  // The file's nodes that graph passes merged into this one, in the order they were merged (with the
  // nodes merged into those before them): what tools report as fused.
  std::vector<FusedNode> fused;
  // MXNet's fused oneDNN operators (_sg_mkldnn_conv, ...) carry the nodes they fused as a subgraph;
  // ExpandMxnetSubgraphs (graph/mxnet_subgraphs.h) inlines them when a model is loaded.
  std::vector<Graph> subgraphs;

  bool is_variable() const { return op == "null"; }
};

// The node's attributes and fused post-ops, as operators and kernels read them.
inline Attrs AttrsOf(const Node& node) { return Attrs(node.attrs, node.op, node.name, &node.post_ops); }

// Nodes are in topological order: every input refers to an earlier node.
struct Graph {
  std::vector<Node> nodes;
  std::vector<NodeEntry> outputs;
};

}  // namespace qv
