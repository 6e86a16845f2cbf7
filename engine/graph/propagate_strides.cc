// PropagateStrides (bound_graph.h): a tensor that only 1x1 convolutions of stride s read is computed
// at one pixel in s by the convolution that produces it.
//
// Why: ResNet v1's bottlenecks (Gluon's resnet50_v1 and deeper) put a stage's stride on the 1x1
// convolutions that open it, so the last block of the stage before computed four times the pixels
// anyone reads: its 3x3 and closing 1x1 convolutions then do a quarter of the work.
#include <map>
#include <set>
#include <vector>

#include "graph/bound_graph.h"
#include "graph/graph_check.h"
#include "ops/convolution.h"

namespace qv {
namespace {

// The stride of `reader` if it is a convolution that reads `data` as its data only, through a 1x1
// kernel without padding, with a stride above 1 on some axis; empty otherwise.
std::vector<int64_t> SubsamplingStride(const Node& reader, const NodeEntry& data) {
  if (reader.op != "Convolution" || !(reader.inputs[0] == data)) return {};
  for (size_t i = 1; i < reader.inputs.size(); ++i)
    if (reader.inputs[i] == data) return {};  // also its weight or residual
  const auto p = ConvolutionParams::Parse(AttrsOf(reader));
  if (p.kernel.size() < 2) return {};
  bool strided = false;
  for (size_t i = 0; i < p.kernel.size(); ++i) {
    if (p.kernel[i] != 1 || p.pad[i] != 0) return {};
    strided = strided || p.stride[i] > 1;
  }
  return strided ? p.stride : std::vector<int64_t>{};
}

// The stride every reader of convolution `id`'s output subsamples it with, or empty when some reader
// does not, they disagree, or the output is also a graph output.
std::vector<int64_t> ReadersStride(const Graph& graph, int id, const std::vector<int>& readers,
                                   const std::set<NodeEntry>& outputs) {
  const NodeEntry out{id, 0};
  if (readers.empty() || outputs.count(out)) return {};
  std::vector<int64_t> stride;
  for (int r : readers) {
    const std::vector<int64_t> s = SubsamplingStride(graph.nodes[r], out);
    if (s.empty() || (!stride.empty() && s != stride)) return {};
    stride = s;
  }
  return stride;
}

// Moves the readers' stride into convolution `id`; a residual it adds is subsampled the same way, by a
// max pooling with a 1x1 window, so that it matches the smaller output.
void MoveStride(Graph& graph, int id, const std::vector<int>& readers, const std::vector<int64_t>& stride) {
  const std::vector<int64_t> ones(stride.size(), 1);
  for (int r : readers) graph.nodes[r].attrs["stride"] = TupleString(ones);
  auto p = ConvolutionParams::Parse(AttrsOf(graph.nodes[id]));
  for (size_t i = 0; i < stride.size(); ++i) p.stride[i] *= stride[i];
  graph.nodes[id].attrs["stride"] = TupleString(p.stride);
  if (!p.has_sum()) return;
  Node pool;
  pool.op = "Pooling";
  pool.name = graph.nodes[id].name + "_residual_subsampled";
  pool.attrs = {{"kernel", TupleString(ones)}, {"stride", TupleString(stride)}, {"pool_type", "max"}};
  pool.inputs = {graph.nodes[id].inputs.back()};
  graph.nodes.push_back(pool);
  graph.nodes[id].inputs.back() = {static_cast<int>(graph.nodes.size()) - 1, 0};
}

}  // namespace

void PropagateStrides(BoundGraph& g) {
  Graph& graph = g.graph;
  const std::set<NodeEntry> outputs(graph.outputs.begin(), graph.outputs.end());
  const std::vector<int> order = TopologicalOrder(graph);
  std::map<int, std::vector<int>> readers;  // convolution -> the nodes reading its output
  for (int id : order)
    for (const NodeEntry& in : graph.nodes[id].inputs)
      if (graph.nodes[in.node].op == "Convolution") readers[in.node].push_back(id);
  // Readers before producers: a convolution that takes a stride may be a 1x1 one itself, whose producer,
  // visited later, takes it in turn. A move changes no producer's list of readers (the pooling it may add
  // reads a residual, which no strided reader could take).
  for (auto id = order.rbegin(); id != order.rend(); ++id) {
    if (graph.nodes[*id].op != "Convolution") continue;
    const std::vector<int64_t> stride = ReadersStride(graph, *id, readers[*id], outputs);
    if (!stride.empty()) MoveStride(graph, *id, readers[*id], stride);
  }
}

}  // namespace qv
