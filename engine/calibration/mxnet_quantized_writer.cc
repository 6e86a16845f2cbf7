#include "calibration/mxnet_quantized_writer.h"

#include <cmath>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/error.h"

namespace qv {
namespace {

using nlohmann::json;

json Ref(int node, int index = 0) { return json::array({node, index, 0}); }

std::string FormatRange(float v) {
  std::ostringstream s;
  s << std::setprecision(9) << v;
  return s.str();
}

json AttrsJson(const std::map<std::string, std::string>& attrs) {
  json out = json::object();
  for (const auto& [k, v] : attrs) out[k] = v;
  return out;
}

json NodeJson(const std::string& op, const std::string& name, json attrs, json inputs) {
  json n = {{"op", op}, {"name", name}, {"inputs", std::move(inputs)}};
  if (!attrs.empty()) n["attrs"] = std::move(attrs);
  return n;
}

NDArrayPtr Scalar(float v) {
  NDArrayPtr a = NDArray::Create({1}, DType::kFloat32);
  a->data_as<float>()[0] = v;
  return a;
}

// MXNet's offline quantization of an inner product's weight or bias (its `_contrib_quantize`, int8):
// symmetric around zero with 127 steps over the larger of |min| and |max|; returns that range.
float QuantizeSymmetric(const NDArray& values, NDArray& int8_out) {
  const float* x = values.data_as<float>();
  const int64_t n = values.size();
  float range = 0;
  for (int64_t i = 0; i < n; ++i) range = std::max(range, std::fabs(x[i]));
  int8_t* q = int8_out.data_as<int8_t>();
  const float scale = range > 0 ? 127.f / range : 0.f;
  for (int64_t i = 0; i < n; ++i)
    q[i] = static_cast<int8_t>(std::copysign(std::min(std::fabs(x[i]) * scale + 0.5f, 127.f), x[i]));
  return range;
}

// A fused operator's subgraph: variables for its inputs, then copies of the nodes it fused.
class Subgraph {
 public:
  int Input(const std::string& name) {
    args_.push_back(Add(NodeJson("null", name, json::object(), json::array())));
    return args_.back();
  }
  int Add(json node) {
    nodes_.push_back(std::move(node));
    return static_cast<int>(nodes_.size()) - 1;
  }
  // A copy of `n` reading the given inner nodes. A plain `relu` becomes Activation(act_type=relu),
  // the form MXNet's fused convolution recognises.
  int Copy(const Node& n, const std::vector<int>& inputs) {
    json in = json::array();
    for (int i : inputs) in.push_back(Ref(i));
    if (n.op == "relu") return Add(NodeJson("Activation", n.name, {{"act_type", "relu"}}, std::move(in)));
    return Add(NodeJson(n.op, n.name, AttrsJson(n.attrs), std::move(in)));
  }
  json Finish(int head) const {
    return {{"nodes", nodes_}, {"arg_nodes", args_}, {"heads", json::array({Ref(head)})}};
  }

 private:
  json nodes_ = json::array();
  std::vector<int> args_;
};

class Writer {
 public:
  Writer(const Graph& g, const std::map<int, NDArrayPtr>& constants, const std::map<int, std::string>& keys,
         const QuantizationScheme& s, const std::map<NodeEntry, Range>& ranges)
      : g_(g), constants_(constants), keys_(keys), s_(s), ranges_(ranges) {}

  QuantizedModel Write() {
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      const int id = static_cast<int>(i);
      const Node& n = g_.nodes[i];
      if (n.is_variable()) continue;  // written where first read
      auto layer = s_.layer_of.find(id);
      if (layer != s_.layer_of.end()) {
        const QuantizedLayer& l = s_.layers[layer->second];
        if (l.nodes.back() == id) at_[id] = l.convolution ? WriteConvolution(l) : WriteInnerProduct(l);
      } else if (s_.int8_passthrough.count(id) != 0) {
        const std::string op = n.op == "Pooling" ? "_contrib_quantized_pooling" : "_contrib_quantized_flatten";
        at_[id] = Emit(NodeJson(op, "quantized_" + n.name, AttrsJson(n.attrs), Int8(n.inputs[0])));
      } else {
        json in = json::array();
        for (const NodeEntry& e : n.inputs) in.push_back(Float(e));
        at_[id] = Emit(NodeJson(n.op, n.name, AttrsJson(n.attrs), std::move(in)));
      }
    }
    json heads = json::array();
    for (const NodeEntry& e : g_.outputs) heads.push_back(Float(e));
    QuantizedModel model;
    model.symbol_json = json{{"nodes", nodes_},
                             {"arg_nodes", arg_nodes_},
                             {"heads", heads},
                             {"attrs", {{"mxnet_version", json::array({"int", 10901})}}}}
                            .dump(2);
    model.params = std::move(params_);
    return model;
  }

 private:
  int Emit(json node) {
    nodes_.push_back(std::move(node));
    return static_cast<int>(nodes_.size()) - 1;
  }

  // A parameter variable holding `value`, stored under `key` (a new one's: "arg:" + name).
  int Param(const std::string& name, NDArrayPtr value, const std::string& key = "", json attrs = json::object()) {
    const int at = Emit(NodeJson("null", name, std::move(attrs), json::array()));
    arg_nodes_.push_back(at);
    params_.names.push_back(key.empty() ? "arg:" + name : key);
    params_.arrays.push_back(std::move(value));
    return at;
  }

  // The file's variable `id`, written once, where first read.
  int Var(int id) {
    auto it = at_.find(id);
    if (it != at_.end()) return it->second;
    const Node& v = g_.nodes[id];
    auto c = constants_.find(id);
    int at;
    if (c != constants_.end()) {
      at = Param(v.name, c->second, keys_.at(id), AttrsJson(v.attrs));
    } else {
      at = Emit(NodeJson("null", v.name, AttrsJson(v.attrs), json::array()));
      arg_nodes_.push_back(at);
    }
    return at_[id] = at;
  }

  // What MXNet calls the tensor when naming the nodes that quantize or dequantize it.
  std::string SourceName(const NodeEntry& e) const {
    const Node& n = g_.nodes[e.node];
    return e.index == 0 ? n.name : n.name + "_output" + std::to_string(e.index);
  }

  const Range& RangeOf(const NodeEntry& e) const {
    auto it = ranges_.find(e);
    Check(it != ranges_.end(), Status::kInternal, "no calibrated range for " + SourceName(e));
    return it->second;
  }

  json CalibAttrs(const NodeEntry& e) const {
    const Range& r = RangeOf(e);
    return {{"min_calib_range", FormatRange(r.min)}, {"max_calib_range", FormatRange(r.max)}};
  }

  // The file's entry `e` as a float32 tensor of the written graph.
  json Float(const NodeEntry& e) {
    if (g_.nodes[e.node].is_variable()) return Ref(Var(e.node), e.index);
    if (!s_.IsInt8(e)) return Ref(at_.at(e.node), e.index);
    auto it = dequantized_.find(e);
    if (it == dequantized_.end())
      it = dequantized_.emplace(e, Emit(NodeJson("_contrib_dequantize", SourceName(e) + "_dequantize", json::object(),
                                                 Int8(e))))
               .first;
    return Ref(it->second);
  }

  // The file's entry `e` as int8 data with its range: three entries of the written graph (data, min,
  // max), quantizing a float32 tensor with its calibrated range on the way in.
  json Int8(const NodeEntry& e) {
    int at;
    if (s_.IsInt8(e)) {
      at = at_.at(e.node);
    } else {
      auto it = quantized_.find(e);
      if (it == quantized_.end()) {
        json attrs = CalibAttrs(e);
        attrs["out_type"] = "auto";
        it = quantized_.emplace(e, Emit(NodeJson("_contrib_quantize_v2", SourceName(e) + "_quantize", attrs,
                                                 json::array({Float(e)}))))
                 .first;
      }
      at = it->second;
    }
    return json::array({Ref(at, 0), Ref(at, 1), Ref(at, 2)});
  }

  int WriteConvolution(const QuantizedLayer& l) {
    const Node& conv = g_.nodes[l.nodes[0]];
    Subgraph sub;
    json in = json::array();
    const json data = Int8(l.data);
    in.push_back(data[0]);
    // A fused node's parameters (inputs 1...): inputs of the written node and of the subgraph.
    auto with_params = [&](const Node& n, std::vector<int> inner) {
      for (size_t i = 1; i < n.inputs.size(); ++i) {
        in.push_back(Ref(Var(n.inputs[i].node)));
        inner.push_back(sub.Input(g_.nodes[n.inputs[i].node].name));
      }
      return inner;
    };
    int tail = sub.Copy(conv, with_params(conv, {sub.Input(SourceName(l.data))}));
    json attrs = CalibAttrs(l.output);
    attrs["quantized"] = "true";
    if (l.batch_norm >= 0) {
      const Node& bn = g_.nodes[l.batch_norm];
      tail = sub.Copy(bn, with_params(bn, {tail}));
      attrs["with_bn"] = "true";
    }
    if (l.act >= 0) {
      tail = sub.Copy(g_.nodes[l.act], {tail});
      attrs["with_act"] = "true";
    }
    json residual;
    if (l.sum >= 0) {
      residual = Int8(l.residual);
      in.push_back(residual[0]);
      // The fused node's operand first, whichever side the file had it on: MXNet orders the
      // subgraph's inputs by this node's.
      tail = sub.Copy(g_.nodes[l.sum], {tail, sub.Input(SourceName(l.residual))});
      attrs["with_sum"] = "true";
    }
    if (l.postsum_act >= 0) {
      tail = sub.Copy(g_.nodes[l.postsum_act], {tail});
      attrs["with_postsum_act"] = "true";
    }
    in.push_back(data[1]);
    in.push_back(data[2]);
    if (l.sum >= 0) {
      in.push_back(residual[1]);
      in.push_back(residual[2]);
    }
    json node = NodeJson("_sg_mkldnn_conv", "quantized_" + conv.name, attrs, in);
    node["subgraphs"] = json::array({sub.Finish(tail)});
    return Emit(std::move(node));
  }

  // An inner product's weight (or bias) as MXNet's offline quantization stores it: the int8 values
  // and their range, three parameters.
  std::array<json, 3> QuantizedParam(const NodeEntry& e) {
    const Node& v = g_.nodes[e.node];
    const NDArray& values = *constants_.at(e.node);
    NDArrayPtr q = NDArray::Create(values.shape(), DType::kInt8);
    const float range = QuantizeSymmetric(values, *q);
    const std::string name = v.name + "_quantize";
    return {Ref(Param(name, q)), Ref(Param(name + "_min", Scalar(-range))), Ref(Param(name + "_max", Scalar(range)))};
  }

  int WriteInnerProduct(const QuantizedLayer& l) {
    const Node& fc = g_.nodes[l.nodes[0]];
    Subgraph sub;
    const json data = Int8(l.data);
    std::vector<int> fc_in = {sub.Input(SourceName(l.data))};
    json in = json::array({data[0]});
    std::vector<std::array<json, 3>> params;
    for (size_t i = 1; i < fc.inputs.size(); ++i) {
      params.push_back(QuantizedParam(fc.inputs[i]));
      in.push_back(params.back()[0]);
      fc_in.push_back(sub.Input(g_.nodes[fc.inputs[i].node].name));
    }
    in.push_back(data[1]);
    in.push_back(data[2]);
    for (const auto& p : params) {
      in.push_back(p[1]);
      in.push_back(p[2]);
    }
    json attrs = l.float_output ? json{{"enable_float_output", "True"}} : CalibAttrs(l.output);
    attrs["quantized"] = "True";
    json node = NodeJson("_sg_mkldnn_fully_connected", "quantized_" + fc.name, attrs, in);
    node["subgraphs"] = json::array({sub.Finish(sub.Copy(fc, fc_in))});
    return Emit(std::move(node));
  }

  const Graph& g_;
  const std::map<int, NDArrayPtr>& constants_;
  const std::map<int, std::string>& keys_;
  const QuantizationScheme& s_;
  const std::map<NodeEntry, Range>& ranges_;
  json nodes_ = json::array();
  std::vector<int> arg_nodes_;
  std::map<int, int> at_;  // the file's node id -> its (or its layer's) node in the written graph
  std::map<NodeEntry, int> quantized_, dequantized_;
  NamedArrays params_;
};

}  // namespace

QuantizedModel WriteMxnetQuantized(const Graph& graph, const std::map<int, NDArrayPtr>& constants,
                                   const std::map<int, std::string>& keys, const QuantizationScheme& scheme,
                                   const std::map<NodeEntry, Range>& ranges) {
  return Writer(graph, constants, keys, scheme, ranges).Write();
}

}  // namespace qv
