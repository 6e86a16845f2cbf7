#include "graph/mxnet_subgraphs.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>
#include <vector>

#include "common/error.h"
#include "common/utf8.h"
#include "graph/bound_graph.h"
#include "ops/int8_hints.h"

namespace qv {
namespace {

// How a tensor of the file's graph is quantized (MXNet's int8 and uint8 tensors), if it is.
struct Quantized {
  DType type = DType::kInt8;
  std::optional<float> range;  // fixed by calibration, else measured per run
  float levels = 127.5f;
};

std::string FloatString(float v) {
  std::ostringstream out;
  out.precision(9);
  out << v;
  return out.str();
}

bool IsReluLike(const Node& node) {
  const Attrs attrs = AttrsOf(node);
  if (node.op == "relu" || node.op == "sigmoid") return true;
  if (node.op == "Activation") {
    const std::string act = attrs.GetString("act_type", "");
    return act == "relu" || act == "sigmoid" || act == "softrelu";
  }
  return node.op == "clip" && attrs.GetFloat("a_min", -1) >= 0;
}

std::optional<float> CalibRange(const Node& node) {
  const Attrs attrs = AttrsOf(node);
  if (!attrs.Has("min_calib_range") || !attrs.Has("max_calib_range")) return std::nullopt;
  return static_cast<float>(std::max(std::fabs(attrs.GetFloat("min_calib_range", 0)),
                                     std::fabs(attrs.GetFloat("max_calib_range", 0))));
}

bool IsTrue(const Node& node, const std::string& key) { return AttrsOf(node).GetBool(key, false); }

// quantize, quantize_v2, requantize, dequantize and the _contrib_quantized_ operators.
bool IsMxnetQuantizationOp(const std::string& op) {
  return op.rfind("_contrib_quantize", 0) == 0 || op == "_contrib_requantize" || op == "_contrib_dequantize";
}

class Expander {
 public:
  explicit Expander(const Graph& in) : in_(in) {}

  Graph Run() {
    for (size_t i = 0; i < in_.nodes.size(); ++i) Add(static_cast<int>(i));
    for (const NodeEntry& head : in_.outputs) out_.outputs.push_back(Map(head, "the graph's outputs"));
    return std::move(out_);
  }

 private:
  [[noreturn]] void Unsupported(const Node& node, const std::string& why) const {
    throw Error(Status::kUnsupported, "node " + QuoteName(node.name) + " (" + node.op + "): " + why);
  }

  // Variables are added when first read, so that those only holding MXNet's ranges disappear.
  NodeEntry Map(const NodeEntry& e, const std::string& reader) {
    if (in_.nodes[e.node].is_variable() && e.index == 0 && !map_.count(e)) map_[e] = Push(in_.nodes[e.node]);
    const auto it = map_.find(e);
    if (it == map_.end())
      throw Error(Status::kUnsupported, reader + " read output " + std::to_string(e.index) + " of node " +
                                            QuoteName(in_.nodes[e.node].name) + ", a quantization range, which " +
                                            "only MXNet's quantized operators may read");
    return it->second;
  }

  NodeEntry Push(Node node) {
    out_.nodes.push_back(std::move(node));
    return {static_cast<int>(out_.nodes.size()) - 1, 0};
  }

  // The node's data input (input 0), which every operator rewritten here has.
  NodeEntry Data(const Node& node) {
    if (node.inputs.empty()) Unsupported(node, "it has no inputs");
    return Map(node.inputs[0], QuoteName(node.name));
  }

  void Add(int id) {
    const Node& node = in_.nodes[id];
    const NodeEntry self{id, 0};
    if (node.is_variable()) return;  // added when first read (Map)
    if (node.op == "_contrib_quantize_v2" || node.op == "_contrib_requantize") {
      map_[self] = Data(node);
      quantized_[self] = QuantizeTarget(node);
    } else if (node.op == "_contrib_dequantize") {
      map_[self] = Data(node);
    } else if (node.op == "_contrib_quantized_pooling" || node.op == "_contrib_quantized_flatten" ||
               node.op == "_contrib_quantized_act") {
      AddPassThrough(id);
    } else if (node.op == "_contrib_quantized_concat") {
      AddConcat(id);
    } else if (node.op == "_contrib_quantized_batch_norm") {
      AddBatchNorm(id);
    } else if (IsMxnetFusedOp(node.op)) {
      Inline(id);
    } else if (IsMxnetQuantizationOp(node.op)) {
      Unsupported(node, "MXNet's quantized operator is not supported (supported: _contrib_quantize_v2, "
                        "_contrib_requantize, _contrib_dequantize, _contrib_quantized_pooling, "
                        "_contrib_quantized_flatten, _contrib_quantized_act, _contrib_quantized_concat, "
                        "_contrib_quantized_batch_norm, and _sg_mkldnn_conv and _sg_mkldnn_fully_connected "
                        "with quantized=true)");
    } else {
      Node copy = node;
      for (NodeEntry& in : copy.inputs) in = Map(in, QuoteName(node.name));
      map_[self] = Push(std::move(copy));
    }
  }

  // quantize_v2 / requantize: out_type auto is uint8 for a calibrated range that is never negative.
  // MXNet's requantize quantizes with 127 (255) levels, where quantize_v2 uses 127.5 (255.5).
  Quantized QuantizeTarget(const Node& node) const {
    const auto calib = CalibRange(node);
    const std::string out_type = AttrsOf(node).GetString("out_type", "int8");
    Quantized q;
    if (out_type == "uint8") q.type = DType::kUInt8;
    else if (out_type == "auto") q.type = calib && AttrsOf(node).GetFloat("min_calib_range", -1) >= 0 ? DType::kUInt8 : DType::kInt8;
    else if (out_type != "int8") Unsupported(node, "out_type " + QuoteName(out_type) + " is not int8, uint8 or auto");
    q.range = calib;
    q.levels = Int8Hints::DataLevels(q.type) - (node.op == "_contrib_requantize" ? 0.5f : 0.f);
    return q;
  }

  // MXNet's quantized pooling, flatten and activation: the float operator on the same tensors.
  void AddPassThrough(int id) {
    const Node& node = in_.nodes[id];
    Node copy = node;
    copy.op = node.op == "_contrib_quantized_pooling" ? "Pooling"
              : node.op == "_contrib_quantized_flatten" ? "Flatten"
                                                          : "Activation";
    copy.inputs = {Data(node)};
    copy.attrs.erase("min_calib_range");
    copy.attrs.erase("max_calib_range");
    map_[{id, 0}] = Push(std::move(copy));
    const auto q = quantized_.find(node.inputs[0]);
    if (q != quantized_.end()) quantized_[{id, 0}] = q->second;
  }

  // MXNet's quantized BatchNorm (one after a layer it cannot fuse into, such as Deconvolution): the
  // float BatchNorm of the same tensor, whose output MXNet writes as int8 on its calibrated range with
  // 127 steps. MXNet 1.9.1 scales by gamma whatever fix_gamma says, and refuses a node without a range.
  void AddBatchNorm(int id) {
    const Node& node = in_.nodes[id];
    if (node.inputs.size() != 7) Unsupported(node, "expected 7 inputs (data, 4 parameters, its min and max)");
    const std::optional<float> range = CalibRange(node);
    if (!range) Unsupported(node, "it has no min_calib_range / max_calib_range (MXNet 1.9.1 cannot run it either)");
    Node copy = node;
    copy.op = "BatchNorm";
    copy.inputs.clear();
    for (int i = 0; i < 5; ++i) copy.inputs.push_back(Map(node.inputs[i], QuoteName(node.name)));
    copy.attrs.erase("min_calib_range");
    copy.attrs.erase("max_calib_range");
    copy.attrs["fix_gamma"] = "False";
    map_[{id, 0}] = Push(std::move(copy));
    quantized_[{id, 0}] = Quantized{DType::kInt8, range, Int8Hints::DataLevels(DType::kInt8) - 0.5f};
  }

  // MXNet's quantized concat: the float Concat of its data inputs. Its inputs are the n data tensors,
  // then each one's min and max. MXNet puts every input on the widest input range, int8 if any input is
  // int8, else uint8; the CPU kernel makes that choice from the tensors it is given
  // (backends/cpu/concat_kernel.cc), and the quantized operators reading the result are told it here.
  void AddConcat(int id) {
    const Node& node = in_.nodes[id];
    const int64_t n = AttrsOf(node).GetInt("num_args", 0);
    if (n < 1 || node.inputs.size() != static_cast<size_t>(3 * n))
      Unsupported(node, "expected num_args (" + std::to_string(n) + ") data inputs and a min and max for each, "
                        "found " + std::to_string(node.inputs.size()) + " inputs");
    Node copy = node;
    copy.op = "Concat";
    copy.inputs.clear();
    std::optional<Quantized> joined = Quantized{DType::kUInt8, 0.f, 0.f};
    for (int64_t i = 0; i < n; ++i) {
      const NodeEntry& data = node.inputs[i];
      for (int64_t k : {n + 2 * i, n + 2 * i + 1})
        if (node.inputs[k].node != data.node)
          Unsupported(node, "the range of data input " + std::to_string(i) + " is not its producer's");
      copy.inputs.push_back(Map(data, QuoteName(node.name)));
      const auto q = quantized_.find(data);
      if (q == quantized_.end()) {
        joined.reset();
      } else if (joined) {
        if (q->second.type == DType::kInt8) joined->type = DType::kInt8;
        if (q->second.range && joined->range) joined->range = std::max(*joined->range, *q->second.range);
        else joined->range.reset();  // measured per run: so is the widest
      }
    }
    copy.attrs.erase("min_calib_range");
    copy.attrs.erase("max_calib_range");
    map_[{id, 0}] = Push(std::move(copy));
    if (joined) {
      joined->levels = Int8Hints::DataLevels(joined->type);
      quantized_[{id, 0}] = *joined;
    }
  }

  void Inline(int id) {
    const Node& node = in_.nodes[id];
    if (node.subgraphs.size() != 1) Unsupported(node, "expected one subgraph, found " + std::to_string(node.subgraphs.size()));
    const Graph& sub = node.subgraphs[0];
    std::vector<int> vars;
    for (size_t i = 0; i < sub.nodes.size(); ++i)
      if (sub.nodes[i].is_variable()) vars.push_back(static_cast<int>(i));
    if (node.inputs.size() < vars.size() || sub.outputs.size() != 1)
      Unsupported(node, "its subgraph has " + std::to_string(vars.size()) + " inputs and " +
                            std::to_string(sub.outputs.size()) + " outputs, the node " +
                            std::to_string(node.inputs.size()) + " inputs");
    const bool quantized = IsTrue(node, "quantized");
    std::map<int, NodeEntry> sub_map;  // subgraph node -> new entry
    for (size_t k = 0; k < vars.size(); ++k) sub_map[vars[k]] = InlinedInput(node, static_cast<int>(k), quantized);

    int root = -1;  // the convolution or inner product that reads the data
    int ops = 0;
    for (size_t i = 0; i < sub.nodes.size(); ++i) {
      const Node& inner = sub.nodes[i];
      if (inner.is_variable()) continue;
      Node copy = inner;
      for (NodeEntry& in : copy.inputs) {
        const auto it = sub_map.find(in.node);
        if (it == sub_map.end() || in.index != 0)
          Unsupported(node, "its subgraph node " + QuoteName(inner.name) + " reads an output the subgraph does not define");
        in = it->second;
      }
      if (root < 0 && (inner.op == "Convolution" || inner.op == "FullyConnected")) root = static_cast<int>(out_.nodes.size());
      sub_map[static_cast<int>(i)] = Push(std::move(copy));
      ++ops;
    }
    if (root < 0) Unsupported(node, "its subgraph has no Convolution or FullyConnected");
    const NodeEntry result = sub_map.at(sub.outputs[0].node);
    map_[{id, 0}] = result;
    if (quantized) AddHints(node, out_.nodes[root], sub.nodes[sub.outputs[0].node], ops - 1, {id, 0});
  }

  // The subgraph's k-th input: the fused node's k-th. A quantized inner product's int8 weight and bias
  // variables are marked with the parameters holding their ranges (DequantizeInt8Params reads them).
  NodeEntry InlinedInput(const Node& node, int k, bool quantized) {
    const NodeEntry outer = Map(node.inputs[k], QuoteName(node.name));
    const bool fc = node.op.find("fully_connected") != std::string::npos;
    if (!quantized || !fc || (k != 1 && k != 2)) return outer;
    if (IsTrue(node, "channel_wise_quantize")) Unsupported(node, "channel_wise_quantize=true is not supported");
    // Inputs: data, weight, [bias], then the min and max of data, weight and [bias].
    const bool has_bias = node.inputs.size() == 9;
    if (node.inputs.size() != (has_bias ? 9u : 6u))
      Unsupported(node, "a quantized inner product has 6 or 9 inputs, this one " + std::to_string(node.inputs.size()));
    if (k == 2 && !has_bias)
      Unsupported(node, "its subgraph reads a bias, but the node has 6 inputs: no bias and no bias range");
    const int min_input = (has_bias ? 3 : 2) + 2 * k;
    Node& var = out_.nodes[outer.node];
    if (!var.is_variable()) Unsupported(node, "its int8 weight " + QuoteName(var.name) + " is not a parameter");
    var.attrs[int8_attr::kWeightMin] = RangeVariable(node, min_input);
    var.attrs[int8_attr::kWeightMax] = RangeVariable(node, min_input + 1);
    return outer;
  }

  std::string RangeVariable(const Node& node, int input) const {
    if (input < 0 || static_cast<size_t>(input) >= node.inputs.size())
      Unsupported(node, "it has no input " + std::to_string(input) + " (a weight range)");
    const Node& var = in_.nodes[node.inputs[input].node];
    if (!var.is_variable()) Unsupported(node, "input " + std::to_string(input) + " (a weight range) is not a parameter");
    return var.name;
  }

  void AddHints(const Node& node, Node& root, const Node& last, int fused_ops, const NodeEntry& self) {
    const auto in = quantized_.find(node.inputs[0]);
    if (in == quantized_.end()) Unsupported(node, "quantized, but its data input is not an int8 or uint8 tensor");
    const bool fc = root.op == "FullyConnected";
    const auto calib = CalibRange(node);
    auto& a = root.attrs;
    a[int8_attr::kInType] = DTypeName(in->second.type);
    if (in->second.range) a[int8_attr::kInRange] = FloatString(*in->second.range);
    a[int8_attr::kInLevels] = FloatString(in->second.levels);
    a[int8_attr::kWeightLevels] = fc ? "127" : "127.5";
    // MXNet scales each output channel's weights separately where the output range is calibrated.
    a[int8_attr::kChannelwise] = !fc && calib ? "true" : "false";
    a[int8_attr::kFusedOps] = std::to_string(fused_ops);
    if (!calib || (fc && IsTrue(node, "enable_float_output"))) {
      a[int8_attr::kOutType] = "float32";
      return;
    }
    // uint8 where the fused operators end in a ReLU-like activation, as MXNet's kernels choose.
    const DType out = IsReluLike(last) ? DType::kUInt8 : DType::kInt8;
    a[int8_attr::kOutType] = DTypeName(out);
    a[int8_attr::kOutRange] = FloatString(*calib);
    quantized_[self] = {out, calib, Int8Hints::DataLevels(out)};
  }

  const Graph& in_;
  Graph out_;
  std::map<NodeEntry, NodeEntry> map_;
  std::map<NodeEntry, Quantized> quantized_;
};

}  // namespace

bool IsMxnetFusedOp(const std::string& op) {
  return op.rfind("_sg_mkldnn_", 0) == 0 || op.rfind("_sg_onednn_", 0) == 0;
}

void ExpandMxnetSubgraphs(Graph& graph) {
  // Only graphs with something to rewrite are rebuilt (a rebuilt graph adds variables as first read).
  if (std::any_of(graph.nodes.begin(), graph.nodes.end(),
                  [](const Node& n) { return IsMxnetFusedOp(n.op) || IsMxnetQuantizationOp(n.op); }))
    graph = Expander(graph).Run();
}

void DequantizeInt8Params(const Graph& graph, std::map<std::string, NDArrayPtr>& params) {
  std::map<std::string, NDArrayPtr*> by_name;
  for (auto& [key, array] : params) by_name[ParamName(key)] = &array;
  for (const Node& var : graph.nodes) {
    if (!var.is_variable() || !var.attrs.count(int8_attr::kWeightMin)) continue;
    auto range = [&](const std::string& key) {
      // The attributes are the expander's, but a file can carry them too: one of the pair is no promise.
      const auto attr = var.attrs.find(key);
      Check(attr != var.attrs.end(), Status::kParse,
            "int8 parameter '" + var.name + "' names the parameter of its " + int8_attr::kWeightMin + " but not of its " +
                int8_attr::kWeightMax);
      const std::string& name = attr->second;
      const auto it = by_name.find(name);
      Check(it != by_name.end() && (*it->second)->dtype() == DType::kFloat32 && (*it->second)->size() == 1,
            Status::kNotFound, "parameter '" + name + "', the range of int8 parameter '" + var.name +
                                   "', is missing or not one float32 value");
      return std::fabs(*(*it->second)->data_as<float>());
    };
    const float step = std::max(range(int8_attr::kWeightMin), range(int8_attr::kWeightMax)) / 127.5f;
    const auto it = by_name.find(var.name);
    Check(it != by_name.end(), Status::kNotFound, "missing int8 parameter '" + var.name + "'");
    NDArrayPtr& param = *it->second;
    Check(param->dtype() == DType::kInt8, Status::kUnsupported,
          "parameter '" + var.name + "' is " + DTypeName(param->dtype()) + ", MXNet's quantized inner products store int8");
    const NDArray& q = *param;
    NDArrayPtr w = NDArray::Create(q.shape(), DType::kFloat32);
    // MXNet stores q = round(w * 127 / r), r = max(|min|, |max|), and its kernel multiplies q by
    // r / 127.5: that product is the float32 parameter.
    for (int64_t i = 0; i < q.size(); ++i) w->data_as<float>()[i] = static_cast<float>(q.data_as<int8_t>()[i]) * step;
    param = w;
  }
}

int CountInt8Nodes(const Graph& graph) {
  return static_cast<int>(std::count_if(graph.nodes.begin(), graph.nodes.end(),
                                         [](const Node& n) { return n.attrs.count(int8_attr::kInType) != 0; }));
}

}  // namespace qv
