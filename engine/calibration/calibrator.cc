#include "calibration/calibrator.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "common/error.h"
#include "graph/bound_graph.h"
#include "graph/mxnet_subgraphs.h"

namespace qv {
Calibrator::Calibrator(const Graph& graph, const std::map<std::string, NDArrayPtr>& params, CalibrationMode mode)
    : graph_(graph), mode_(mode) {
  Check(CountInt8Nodes(graph_) == 0, Status::kInvalidArgument,
        "the model already carries int8 calibration; calibrate its float32 model");
  const BoundGraph bound = BindParameters(graph_, params);
  input_names_ = bound.input_names;
  input_ids_ = bound.data_inputs;
  std::map<std::string, std::string> key_of;  // variable name -> its key in the params, prefix kept
  for (const auto& [key, array] : params) key_of[ParamName(key)] = key == ParamName(key) ? "arg:" + key : key;
  std::set<int> param_ids;
  for (const auto& [id, array] : bound.constants) {
    param_ids.insert(id);
    constants_[id] = array;
    keys_[id] = key_of.at(graph_.nodes[id].name);
  }
  scheme_ = PlanQuantization(graph_, param_ids);
  Check(!scheme_.layers.empty(), Status::kInvalidArgument,
        "the model has no convolution or fully connected layer that int8 could run");

  Graph probe = graph_;
  probe.outputs.clear();
  for (const NodeEntry& e : scheme_.calibrated) {
    auto input = std::find(input_ids_.begin(), input_ids_.end(), e.node);
    if (input != input_ids_.end()) {
      calibrated_inputs_.push_back(input - input_ids_.begin());
    } else {
      probe.outputs.push_back(e);
      probe_outputs_.push_back(e);
    }
  }
  // The model's own outputs too, so that a batch the model cannot run fails here as it would there.
  probe.outputs.insert(probe.outputs.end(), graph_.outputs.begin(), graph_.outputs.end());
  CachedOpOptions options;
  options.precision = Precision::kFloat32;
  probe_ = CachedOp::Create(probe, params, options);
}

std::optional<Range> Calibrator::Measure(const NodeEntry& entry, const NDArray& values, int batch) const {
  const float* x = values.data_as<float>();
  const int64_t n = values.size();
  if (n == 0) return std::nullopt;
  const Node& node = graph_.nodes[entry.node];
  Check(std::all_of(x, x + n, [](float v) { return std::isfinite(v); }), Status::kInvalidArgument,
        "calibration batch " + std::to_string(batch + 1) + ": " +  // counted from 1, as users count
            (node.is_variable() ? "input '" + node.name + "'" : "the output of node '" + node.name + "'") +
            " holds NaN or infinity");
  const auto [lo, hi] = std::minmax_element(x, x + n);
  return Range{*lo, *hi};
}

void Calibrator::AddBatch(const std::vector<NDArrayPtr>& inputs) {
  Check(inputs.size() == input_names_.size(), Status::kInvalidArgument,
        "calibration batch: " + std::to_string(inputs.size()) + " inputs given, the model takes " +
            std::to_string(input_names_.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    Check(inputs[i] != nullptr, Status::kInvalidArgument, "calibration batch: input '" + input_names_[i] + "' is null");
    Check(inputs[i]->dtype() == DType::kFloat32, Status::kInvalidArgument,
          "calibration batch: input '" + input_names_[i] + "' is " + DTypeName(inputs[i]->dtype()) +
              ", calibration takes float32");
  }
  std::vector<NDArrayPtr> probe_inputs, outputs;
  for (const std::string& name : probe_->input_names()) {
    auto at = std::find(input_names_.begin(), input_names_.end(), name);
    probe_inputs.push_back(inputs[at - input_names_.begin()]);
  }
  probe_->Invoke(probe_inputs, &outputs);
  for (const NDArrayPtr& in : inputs) ThrowIfFailed(Engine::Get().WaitToRead(in->var()));
  for (const NDArrayPtr& out : outputs) ThrowIfFailed(Engine::Get().WaitToRead(out->var()));

  std::lock_guard<std::mutex> lock(mu_);
  // Every tensor is measured before any range widens: a rejected batch leaves them as they were.
  struct Measured {
    NodeEntry entry;
    const NDArray* values;
    std::optional<Range> range;
  };
  std::vector<Measured> measured;
  for (size_t i : calibrated_inputs_) {
    const NodeEntry input{input_ids_[i], 0};
    measured.push_back({input, inputs[i].get(), Measure(input, *inputs[i], batches_)});
  }
  for (size_t i = 0; i < probe_outputs_.size(); ++i)
    measured.push_back({probe_outputs_[i], outputs[i].get(), Measure(probe_outputs_[i], *outputs[i], batches_)});
  for (const auto& [entry, values, r] : measured) {
    if (!r) continue;  // an empty tensor says nothing about the range
    auto [it, first] = ranges_.try_emplace(entry, *r);
    if (!first) it->second = {std::min(it->second.min, r->min), std::max(it->second.max, r->max)};
    if (mode_ == CalibrationMode::kEntropy)
      histograms_[entry].Add(values->data_as<float>(), values->size(), r->min, r->max);
  }
  ++batches_;
}

QuantizedModel Calibrator::Save() const {
  std::lock_guard<std::mutex> lock(mu_);
  Check(batches_ > 0, Status::kInvalidArgument, "no calibration batch was added");
  if (mode_ == CalibrationMode::kNaive) return WriteMxnetQuantized(graph_, constants_, keys_, scheme_, ranges_);
  std::map<NodeEntry, Range> thresholds;
  for (const auto& [entry, histogram] : histograms_)
    thresholds[entry] = histogram.EntropyRange(/*non_negative=*/ranges_.at(entry).min >= 0);
  return WriteMxnetQuantized(graph_, constants_, keys_, scheme_, thresholds);
}

}  // namespace qv
