// MXNet 1.9's "entropy" calibration (mxnet.contrib.quantization with calib_mode "entropy"), reproduced
// operation for operation, float32 and float64 where MXNet (numpy 1.x and its calibrate_entropy
// operator) uses them, so that Quiver picks the thresholds MXNet picks from the same values: a
// histogram of each calibrated tensor over all batches, then the threshold whose int8 quantization
// keeps the histogram's shape best (the smallest KL divergence).
#pragma once

#include <cstdint>
#include <vector>

#include "calibration/mxnet_quantized_writer.h"

namespace qv {

// The values of one tensor over the calibration batches, counted as MXNet's histogram collector counts
// them: kBins bins spread evenly over [-t, t], t the largest |value| of the first batch (numpy's
// histogram, float32 bin edges). A later batch with larger values widens the histogram by whole bins of
// the same width on both sides, the counts so far keeping their bins, so all batches share one bin width.
class ValueHistogram {
 public:
  static constexpr int64_t kBins = 8001;

  // Counts the `n` values at `values` (finite), whose smallest is `lo` and largest `hi`.
  void Add(const float* values, int64_t n, float lo, float hi);

  // The range MXNet calibrates the tensor to: [-t, t] with t the KL-optimal threshold over 255 int8
  // steps, or, when `non_negative` (no value was negative), [0, t] over 511 steps (MXNet's uint8 for
  // quantized_dtype "auto"). Needs at least one Add.
  Range EntropyRange(bool non_negative) const;

 private:
  // Starts over with `bins` empty bins over [-limit, limit] (numpy's [-0.5, 0.5] for limit 0).
  // `single`: limit is a float32 value, as numpy holds it until the first widening.
  void Reset(double limit, int64_t bins, bool single);
  void Count(const float* values, int64_t n);
  int64_t BinOf(float v) const;

  std::vector<int64_t> counts_;
  std::vector<float> edges_;  // counts_.size() + 1 of them
  double limit_ = 0;     // MXNet's th: the histogram covers [-limit_, limit_]
  bool single_ = true;   // limit_ is still the float32 |value| of a batch
  float first_ = 0, last_ = 0, scale_ = 0;  // float32 lower and upper edge, bins per unit
};

// The threshold MXNet's calibrate_entropy operator picks from a histogram with an odd number of bins
// symmetric around zero (`edges`: one more than `counts`): for each candidate t = an upper bin edge at
// or above num_quantized_bins / 2 bins from the middle, the counts within [-t, t] (those outside added
// to the outermost bins) are compared, as distributions smoothed to have no empty bin, with the same
// counts merged into num_quantized_bins groups and spread back over the non-empty bins of each group;
// the first t with the smallest divergence wins. float32 arithmetic, as MXNet's.
float KlOptimalThreshold(const std::vector<int64_t>& counts, const std::vector<float>& edges, int num_quantized_bins);

}  // namespace qv
