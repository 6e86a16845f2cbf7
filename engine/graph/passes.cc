// Inference-time graph rewrites. Each pass redirects the uses of the nodes it absorbs; absorbed nodes
// stay in the node list but are no longer reachable from the outputs, so plans never see them.
#include <algorithm>
#include <optional>
#include <set>

#include "common/error.h"
#include "graph/bound_graph.h"
#include "graph/graph_check.h"
#include "ops/amp_cast.h"
#include "ops/batch_norm.h"
#include "ops/cast.h"
#include "ops/deconvolution.h"
#include "ops/identity.h"
#include "ops/rnn.h"

namespace qv {
namespace {

using Redirects = std::map<NodeEntry, NodeEntry>;

NodeEntry Resolve(const Redirects& r, NodeEntry e) {
  for (auto it = r.find(e); it != r.end(); it = r.find(e)) e = it->second;
  return e;
}

void ApplyRedirects(Graph& graph, const Redirects& r) {
  if (r.empty()) return;
  for (Node& node : graph.nodes)
    for (NodeEntry& in : node.inputs) in = Resolve(r, in);
  for (NodeEntry& out : graph.outputs) out = Resolve(r, out);
}

// How many times each output is read by reachable nodes or listed as a graph output.
std::map<NodeEntry, int> CountUses(const Graph& graph) {
  std::map<NodeEntry, int> uses;
  for (int id : TopologicalOrder(graph))
    for (const NodeEntry& in : graph.nodes[id].inputs) ++uses[in];
  for (const NodeEntry& out : graph.outputs) ++uses[out];
  return uses;
}

bool IsConstant(const BoundGraph& g, const NodeEntry& e) { return g.constants.count(e.node) != 0; }

int AddConstant(BoundGraph& g, const std::string& name, NDArrayPtr value) {
  Node var;
  var.op = "null";
  var.name = name;
  g.graph.nodes.push_back(var);
  const int id = static_cast<int>(g.graph.nodes.size()) - 1;
  g.constants[id] = std::move(value);
  return id;
}

// Records that `from` now runs inside `into`.
void Merge(Node& into, const Node& from) {
  into.fused.insert(into.fused.end(), from.fused.begin(), from.fused.end());
  into.fused.push_back({from.op, from.name});
}

// The BatchNorm that reads the convolution's (or deconvolution's) only use, folded into new weights and
// a bias: s = gamma / sqrt(var + eps); w' = w * s; b' = (b - mean) * s + beta, s taken per output
// channel. A Convolution's weight has its output channels on axis 0; a Deconvolution's is (in_channels,
// filters per group, kh, kw), input channel c feeding filters of c's group only.
void FoldInto(BoundGraph& g, int conv_id, const Node& bn) {
  Node& conv = g.graph.nodes[conv_id];
  const auto bp = BatchNormParams::Parse(AttrsOf(bn));
  const NDArray& w = *g.constants.at(conv.inputs[1].node);
  const float* gamma = g.constants.at(bn.inputs[1].node)->data_as<float>();
  const float* beta = g.constants.at(bn.inputs[2].node)->data_as<float>();
  const float* mean = g.constants.at(bn.inputs[3].node)->data_as<float>();
  const float* var = g.constants.at(bn.inputs[4].node)->data_as<float>();
  // Without post-ops (FoldBatchNorm's condition), a third input is the bias.
  const float* bias = conv.inputs.size() > 2 ? g.constants.at(conv.inputs[2].node)->data_as<float>() : nullptr;

  const bool deconv = conv.op == "Deconvolution";
  const int64_t groups = deconv ? DeconvolutionParams::Parse(AttrsOf(conv)).num_group : 1;
  const int64_t out_channels = deconv ? w.shape()[1] * groups : w.shape()[0];
  const int64_t kernel = w.size() / (w.shape()[0] * w.shape()[1]);  // elements of one (kh, kw) filter
  const int64_t in_per_group = w.shape()[0] / groups;
  std::vector<double> scale(static_cast<size_t>(out_channels));
  NDArrayPtr new_b = NDArray::Create({out_channels}, DType::kFloat32);
  for (int64_t o = 0; o < out_channels; ++o) {
    scale[o] = bp.ChannelScale(gamma[o], var[o]);
    new_b->data_as<float>()[o] = static_cast<float>(((bias ? bias[o] : 0.0) - mean[o]) * scale[o] + beta[o]);
  }
  NDArrayPtr new_w = NDArray::Create(w.shape(), DType::kFloat32);
  const float* src = w.data_as<float>();
  float* dst = new_w->data_as<float>();
  for (int64_t i = 0; i < w.size(); ++i) {
    const int64_t a0 = i / (w.shape()[1] * kernel), a1 = i / kernel % w.shape()[1];
    const int64_t o = deconv ? a0 / in_per_group * w.shape()[1] + a1 : a0;
    dst[i] = static_cast<float>(src[i] * scale[o]);
  }
  const NodeEntry data = conv.inputs[0];
  const std::string name = conv.name;
  const int w_id = AddConstant(g, name + "_folded_weight", new_w);
  const int b_id = AddConstant(g, name + "_folded_bias", new_b);
  Node& folded = g.graph.nodes[conv_id];  // AddConstant may have moved the node list
  folded.inputs = {data, {w_id, 0}, {b_id, 0}};
  folded.attrs["no_bias"] = "False";
  Merge(folded, bn);
}

}  // namespace

void DropZeroBeginStates(BoundGraph& g) {
  for (int id : TopologicalOrder(g.graph)) {
    Node& node = g.graph.nodes[id];
    if (node.op != "RNN" || node.inputs.size() < 3) continue;
    const RnnParams p = RnnParams::Parse(AttrsOf(node));
    // Only states whose shape leaves a size to inference, the rest agreeing with the RNN; a fully
    // given shape stays an input, which the RNN's shape inference checks.
    bool zeros = true;
    for (size_t i = 2; i < node.inputs.size(); ++i) {
      const Node& src = g.graph.nodes[node.inputs[i].node];
      const Shape shape = src.op == "_zeros" ? AttrsOf(src).GetTuple("shape", {}) : Shape{};
      zeros = zeros && shape.size() == 3 && (shape[0] == 0 || shape[0] == p.layers * p.directions) &&
              (shape[2] == 0 || shape[2] == p.hidden) && std::count(shape.begin(), shape.end(), 0) > 0;
    }
    if (!zeros) continue;
    node.inputs.resize(2);
    node.attrs[kRnnZeroBeginState] = "True";
  }
}

namespace {

// A `_zeros` whose shape leaves sizes (0) to MXNet's shape inference, which fills them from its
// consumers: Gluon's and mx.rnn's unrolled cells' begin states, (0, hidden), take the batch size of
// whatever they meet. Looks through `entry`'s (of rank `rank`) consumers for the other operand of an
// elementwise node that does not depend on `pending` nodes: `dims` maps the zeros' unknown axes to
// `entry`'s axes, and the result to that operand's. Follows element-wise unary ops, SliceChannel
// along another axis, and FullyConnected's data input (output axis 0, or every leading axis with
// flatten=False, is the data's).
std::optional<std::pair<NodeEntry, std::vector<int64_t>>> FindSizeSource(
    const Graph& graph, const std::vector<int>& order, const std::vector<char>& pending, NodeEntry entry,
    const std::vector<int64_t>& dims, size_t rank, int depth) {
  if (depth > 8) return std::nullopt;
  for (int id : order) {
    const Node& c = graph.nodes[id];
    const OpDef* def = FindOp(c.op);
    const bool elementwise = def != nullptr && def->Traits(AttrsOf(c)).elementwise;
    for (size_t k = 0; k < c.inputs.size(); ++k) {
      if (!(c.inputs[k] == entry)) continue;
      const NodeEntry out{id, 0};
      if (elementwise && c.inputs.size() == 2) {
        const NodeEntry other = c.inputs[1 - k];
        if (!pending[other.node]) return std::make_pair(other, dims);
      } else if (!(elementwise && c.inputs.size() == 1) && !(c.op == "FullyConnected" && k == 0) &&
                 !(c.op == "SliceChannel" && k == 0)) {
        continue;
      }
      size_t out_rank = rank;
      std::vector<int64_t> out_dims = dims;
      if (c.op == "SliceChannel") {  // each output is the data split along `axis` (dropped if squeezed)
        const Attrs a = AttrsOf(c);
        int64_t axis = a.GetInt("axis", 1);
        if (axis < 0) axis += static_cast<int64_t>(rank);
        if (std::count(dims.begin(), dims.end(), axis)) continue;
        if (a.GetBool("squeeze_axis", false)) {
          for (int64_t& d : out_dims) d -= d > axis ? 1 : 0;
          --out_rank;
        }
      }
      if (c.op == "FullyConnected") {
        // Data (N, ...) gives (N, hidden); with flatten=False, (..., in) gives (..., hidden).
        const bool flatten = AttrsOf(c).GetBool("flatten", true);
        bool kept = true;
        for (int64_t d : dims) kept = kept && (flatten ? d == 0 : d + 1 < static_cast<int64_t>(rank));
        if (!kept) continue;
        if (flatten) out_rank = 2;
      }
      if (auto found = FindSizeSource(graph, order, pending, out, out_dims, out_rank, depth + 1)) return found;
    }
  }
  return std::nullopt;
}

bool HasUnknownSize(const Node& node) {
  if (node.op != "_zeros" && node.op != "_ones") return false;
  const Shape shape = AttrsOf(node).GetTuple("shape", {});
  return std::count(shape.begin(), shape.end(), 0) > 0;
}

}  // namespace

void InferFillSizes(BoundGraph& g) {
  for (bool progress = true; progress;) {
    progress = false;
    const std::vector<int> order = TopologicalOrder(g.graph);
    std::vector<char> pending(g.graph.nodes.size(), 0);  // depends on a fill of unknown size
    for (int id : order) {
      const Node& node = g.graph.nodes[id];
      pending[id] = HasUnknownSize(node);
      for (const NodeEntry& in : node.inputs) pending[id] = pending[id] || pending[in.node];
    }
    for (int id : order) {
      if (!HasUnknownSize(g.graph.nodes[id])) continue;
      Shape shape = AttrsOf(g.graph.nodes[id]).GetTuple("shape", {});
      std::vector<int64_t> unknown;
      for (size_t d = 0; d < shape.size(); ++d)
        if (shape[d] == 0) unknown.push_back(static_cast<int64_t>(d));
      const auto found = FindSizeSource(g.graph, order, pending, {id, 0}, unknown, shape.size(), 0);
      if (!found) continue;
      // The fill becomes broadcast_like(fill with those sizes 1, source, lhs_axes, rhs_axes).
      Node fill = g.graph.nodes[id];
      for (int64_t d : unknown) shape[d] = 1;
      fill.attrs["shape"] = TupleString(shape);
      fill.name += "_fill";
      g.graph.nodes.push_back(fill);
      Node& like = g.graph.nodes[id];
      like.op = "broadcast_like";
      like.attrs = {{"lhs_axes", TupleString(unknown)}, {"rhs_axes", TupleString(found->second)}};
      like.inputs = {{static_cast<int>(g.graph.nodes.size()) - 1, 0}, found->first};
      progress = true;
      break;  // `pending` changed
    }
  }
}

void FoldCasts(BoundGraph& g) {
  Redirects r;
  for (int id : TopologicalOrder(g.graph)) {
    const Node node = g.graph.nodes[id];
    if (node.op == "amp_multicast") {
      const int n = ParseAmpMultiCast(AttrsOf(node));
      for (int i = 0; i < n; ++i) r[{id, i}] = node.inputs[static_cast<size_t>(i)];
      continue;
    }
    if (node.op != "amp_cast") continue;
    const AmpTarget target = ParseAmpCast(AttrsOf(node));
    const NodeEntry in = Resolve(r, node.inputs[0]);
    if (target == AmpTarget::kFloat32) {
      r[{id, 0}] = in;
    } else if (IsConstant(g, in)) {
      const NDArray& value = *g.constants.at(in.node);
      Check(value.dtype() == DType::kFloat32, Status::kUnsupported,
            "node '" + node.name + "' (amp_cast): its parameter is " + DTypeName(value.dtype()) +
                ", only float32 is supported");
      NDArrayPtr rounded = NDArray::Create(value.shape(), DType::kFloat32);
      const float* src = value.data_as<float>();
      float* dst = rounded->data_as<float>();
      for (int64_t i = 0; i < value.size(); ++i) dst[i] = RoundTo(target, src[i]);
      r[{id, 0}] = {AddConstant(g, node.name, rounded), 0};
    }
  }
  ApplyRedirects(g.graph, r);
}

void RemoveIdentities(BoundGraph& g) {
  Redirects r;
  for (int id : TopologicalOrder(g.graph)) {
    const Node& node = g.graph.nodes[id];
    // Cast to float32 copies: Quiver holds every tensor in float32.
    const bool float32_cast = node.op == "Cast" && !CastTruncates(AttrsOf(node));
    if (IsIdentityOp(node.op) || float32_cast) r[{id, 0}] = node.inputs[0];
  }
  ApplyRedirects(g.graph, r);
}

void FoldBatchNorm(BoundGraph& g) {
  const auto uses = CountUses(g.graph);
  Redirects r;
  for (int id : TopologicalOrder(g.graph)) {
    const Node bn = g.graph.nodes[id];
    if (bn.op != "BatchNorm" || !bn.post_ops.empty()) continue;
    const NodeEntry in = bn.inputs[0];
    const Node& conv = g.graph.nodes[in.node];
    if ((conv.op != "Convolution" && conv.op != "Deconvolution") || !conv.post_ops.empty() || uses.at(in) != 1)
      continue;
    bool constant = true;
    for (size_t i = 1; i < conv.inputs.size(); ++i) constant = constant && IsConstant(g, conv.inputs[i]);
    for (size_t i = 1; i < bn.inputs.size(); ++i) constant = constant && IsConstant(g, bn.inputs[i]);
    if (!constant) continue;
    FoldInto(g, in.node, bn);
    r[{id, 0}] = in;
  }
  ApplyRedirects(g.graph, r);
}

void FuseActivations(BoundGraph& g, const FusionRules& rules) {
  const auto uses = CountUses(g.graph);
  Redirects r;
  for (int id : TopologicalOrder(g.graph)) {
    const Node& act = g.graph.nodes[id];
    const std::optional<PostOp> post = AsPostOp(act.op, AttrsOf(act));
    if (!post || act.inputs.size() != 1) continue;
    const NodeEntry in = act.inputs[0];
    Node& producer = g.graph.nodes[in.node];
    if (producer.is_variable() || uses.at(in) != 1 || !rules.FusesPostOp(producer, *post)) continue;
    producer.post_ops.push_back(*post);
    Merge(producer, act);
    r[{id, 0}] = in;
  }
  ApplyRedirects(g.graph, r);
}

void FuseResidualAdd(BoundGraph& g, const FusionRules& rules) {
  auto uses = CountUses(g.graph);
  Redirects r;
  for (int id : TopologicalOrder(g.graph)) {
    const Node add = g.graph.nodes[id];
    if (add.op != "elemwise_add") continue;
    for (int side = 0; side < 2; ++side) {
      const NodeEntry conv_out = add.inputs[side];
      Node& conv = g.graph.nodes[conv_out.node];
      if (conv.is_variable() || uses.at(conv_out) != 1 || !rules.FusesSum(conv)) continue;
      conv.inputs.push_back(add.inputs[1 - side]);
      conv.post_ops.push_back(PostOp{PostOp::kSum});
      Merge(conv, add);
      r[{id, 0}] = conv_out;
      break;
    }
  }
  ApplyRedirects(g.graph, r);
}

void Optimize(BoundGraph& g, const FusionRules& rules) {
  FoldCasts(g);
  TruncateIntegerDivisions(g);
  RemoveIdentities(g);
  FoldConstantMoves(g);  // also _rnn_param_concat's packed RNN weights
  DropZeroBeginStates(g);
  InferFillSizes(g);
  FoldBatchNorm(g);
  FuseActivations(g, rules);
  FuseResidualAdd(g, rules);
  FuseActivations(g, rules);
  PropagateStrides(g);
  // Parameters that passes replaced (folded weights' originals) are freed here.
  std::set<int> reachable;
  for (int id : TopologicalOrder(g.graph)) reachable.insert(id);
  for (auto it = g.constants.begin(); it != g.constants.end();)
    it = reachable.count(it->first) ? std::next(it) : g.constants.erase(it);
}

}  // namespace qv
