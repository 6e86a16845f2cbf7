// Quiver's own int8 calibration: runs a float32 model over sample batches, records the range of every
// tensor an int8 model quantizes (MXNet's "naive" calibration: the smallest and largest value seen; or
// its "entropy" calibration: the KL-optimal threshold of the values' histogram,
// calibration/value_histogram.h),
// and writes the calibrated model in MXNet 1.9's quantized format (calibration/mxnet_quantized_writer.h),
// which Quiver runs at precision int8 and MXNet 1.9 loads too.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cachedop/cached_op.h"
#include "calibration/mxnet_quantized_writer.h"
#include "calibration/value_histogram.h"

namespace qv {

// How a calibrated tensor's range is chosen (MXNet's calib_mode).
enum class CalibrationMode {
  kNaive,    // the smallest and largest value seen
  kEntropy,  // [-t, t], or [0, t] for a tensor never negative, t minimising the KL divergence
};

class Calibrator {
 public:
  // `graph`: a float32 model as read from its symbol JSON; `params` as for CachedOp::Create. Throws
  // Error(Status::kInvalidArgument) for a model that already carries int8 calibration or has no
  // convolution or inner product to quantize, and what CachedOp::Create throws for a model that
  // cannot run.
  Calibrator(const Graph& graph, const std::map<std::string, NDArrayPtr>& params,
             CalibrationMode mode = CalibrationMode::kNaive);

  // The data inputs, in the order AddBatch takes them.
  const std::vector<std::string>& input_names() const { return input_names_; }

  // Runs the float32 model on one batch (float32 arrays, any batch size) and widens the recorded
  // ranges (entropy: adds the values to each tensor's histogram too). Blocks until done. Throws for
  // wrong inputs as CachedOp::Invoke does, and Error(Status::kInvalidArgument) naming the tensor
  // when a batch yields NaN or infinity.
  void AddBatch(const std::vector<NDArrayPtr>& inputs);

  // The calibrated model. Throws Error(Status::kInvalidArgument) before any batch was added. Entropy
  // mode searches each histogram's thresholds here (about 0.1 s per tensor).
  QuantizedModel Save() const;

 private:
  // The smallest and largest value of `values` (none for an empty tensor); throws naming `entry` for
  // NaN or infinity.
  std::optional<Range> Measure(const NodeEntry& entry, const NDArray& values, int batch) const;

  Graph graph_;
  CalibrationMode mode_;
  std::map<int, NDArrayPtr> constants_;
  std::map<int, std::string> keys_;
  std::vector<std::string> input_names_;
  std::vector<int> input_ids_;            // their variable nodes
  std::vector<size_t> calibrated_inputs_;  // indices of the inputs whose ranges calibration records
  QuantizationScheme scheme_;
  // The float32 model with the calibrated tensors as its first outputs (probe_outputs_), then its own.
  std::shared_ptr<CachedOp> probe_;
  std::vector<NodeEntry> probe_outputs_;
  mutable std::mutex mu_;               // guards ranges_, histograms_ and batches_
  std::map<NodeEntry, Range> ranges_;
  std::map<NodeEntry, ValueHistogram> histograms_;  // entropy mode only
  int batches_ = 0;
};

}  // namespace qv
