// FoldConstantMoves: data-movement nodes whose inputs are all parameters become parameters, computed
// once at creation. GluonNLP builds its fused attention weights this way (Reshape, Concat and stack
// of the query, key and value weights), and the FullyConnected kernels pack only parameters.
#include <cmath>
#include <cstring>
#include <set>

#include "common/error.h"
#include "graph/bound_graph.h"
#include "graph/graph_check.h"
#include "ops/cast.h"
#include "ops/shape_ops.h"

namespace qv {
namespace {

// What the node's operator does with its data (OpTraits::movement); kCompute for unknown operators.
DataMovement MovementOf(const Node& node) {
  const OpDef* def = FindOp(node.op);
  return def == nullptr ? DataMovement::kCompute : def->Traits(AttrsOf(node)).movement;
}

// Same-order moves, strided windows (ops/shape_ops.h's StridedRead) and joins, and casts; the
// operators that can enlarge a tensor (tile, repeat, broadcasts) are left to run time.
bool Folds(const Node& node) {
  const DataMovement m = MovementOf(node);
  return m == DataMovement::kSameOrder || m == DataMovement::kStrided || m == DataMovement::kJoin ||
         node.op == "Cast";
}

int64_t Product(const Shape& s, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t d = begin; d < end; ++d) p *= s[d];
  return p;
}

// Concat (along `dim`) or stack (along a new `axis`) of `in` into `out`: for each index before the
// axis, each input's block of elements from the axis on, in input order.
void Join(const Attrs& attrs, const std::vector<const NDArray*>& in, NDArray& out) {
  const bool stack = attrs.op() == "stack";
  const int64_t ndim = static_cast<int64_t>(out.shape().size());
  int64_t axis = stack ? attrs.GetInt("axis", 0) : attrs.GetInt("dim", 1);
  if (axis < 0) axis += ndim;
  const int64_t outer = Product(out.shape(), 0, static_cast<size_t>(axis));
  float* dst = out.data_as<float>();
  for (int64_t o = 0; o < outer; ++o)
    for (const NDArray* x : in) {
      const int64_t row = x->size() / outer;
      std::memcpy(dst, x->data_as<float>() + o * row, sizeof(float) * static_cast<size_t>(row));
      dst += row;
    }
}

void StridedCopy(const StridedRead& read, const NDArray& in, NDArray& out) {
  const float* src = in.data_as<float>();
  float* dst = out.data_as<float>();
  const int64_t n = out.size();
  for (int64_t i = 0; i < n; ++i) {
    int64_t at = read.offset, rest = i;
    for (size_t d = read.out.size(); d-- > 0;) {
      at += (rest % read.out[d]) * read.strides[d];
      rest /= read.out[d];
    }
    dst[i] = src[at];
  }
}

// The node's output computed from its constant inputs.
NDArrayPtr Evaluate(const Node& node, const std::vector<const NDArray*>& in) {
  const Attrs attrs = AttrsOf(node);
  std::vector<TensorType> types;
  std::vector<Shape> shapes;
  for (const NDArray* x : in) {
    types.push_back({x->shape(), x->dtype()});
    shapes.push_back(x->shape());
  }
  const std::vector<TensorType> out_types = FindOp(node.op)->InferShape(attrs, types);
  NDArrayPtr out = NDArray::Create(out_types.at(0).shape, DType::kFloat32);
  const DataMovement movement = MovementOf(node);
  if (movement == DataMovement::kJoin) {
    Join(attrs, in, *out);
  } else if (movement == DataMovement::kStrided) {
    StridedCopy(ResolveStridedRead(attrs, shapes), *in[0], *out);
  } else {
    const bool truncates = node.op == "Cast" && CastTruncates(attrs);
    const float* src = in[0]->data_as<float>();
    float* dst = out->data_as<float>();
    for (int64_t i = 0; i < out->size(); ++i) dst[i] = truncates ? std::trunc(src[i]) : src[i];
  }
  return out;
}

}  // namespace

void FoldConstantMoves(BoundGraph& g) {
  std::map<NodeEntry, NodeEntry> r;
  auto resolve = [&](NodeEntry e) {
    auto it = r.find(e);
    return it == r.end() ? e : it->second;
  };
  for (int id : TopologicalOrder(g.graph)) {
    const Node node = g.graph.nodes[id];  // a copy: adding a constant may move the node list
    if (node.is_variable() || !Folds(node) || !node.post_ops.empty()) continue;
    std::vector<const NDArray*> in;
    for (const NodeEntry& e : node.inputs) {
      const auto c = g.constants.find(resolve(e).node);
      if (c == g.constants.end()) break;
      in.push_back(c->second.get());
    }
    if (in.empty() || in.size() != node.inputs.size()) continue;
    NDArrayPtr value = Evaluate(node, in);
    g.graph.nodes.push_back(Node{});
    Node& var = g.graph.nodes.back();
    var.op = "null";
    var.name = node.name + "_folded";
    const int var_id = static_cast<int>(g.graph.nodes.size()) - 1;
    g.constants[var_id] = std::move(value);
    r[{id, 0}] = {var_id, 0};
  }
  if (r.empty()) return;
  for (Node& node : g.graph.nodes)
    for (NodeEntry& e : node.inputs) e = resolve(e);
  for (NodeEntry& e : g.graph.outputs) e = resolve(e);
}

}  // namespace qv
