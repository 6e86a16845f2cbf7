// UpSampling attributes and geometry (MXNet 1.9.1, upsampling-inl.h / upsampling.cc).
//
// Nearest: each of `num_args` NCHW inputs repeated into an output of the first input's size times
// `scale`; input i's own factor is the output height over its height (it must divide the output in both
// axes, by the same factor). Several inputs are concatenated along channels (multi_input_mode concat)
// or added (sum, equal channel counts). Bilinear: inputs data and weight; MXNet runs it as a
// Deconvolution with kernel 2 scale - scale % 2, stride scale, pad ceil((scale - 1) / 2), one group
// per channel and no bias, whose weight (C, 1, k, k) is the second input.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ops/op.h"

namespace qv {

struct UpSamplingParams {
  int64_t scale = 1;
  bool bilinear = false;
  bool sum = false;  // multi_input_mode sum (else concat)
  int64_t num_args = 1;
  int64_t num_filter = 0;

  static UpSamplingParams Parse(const Attrs& attrs);
  // Bilinear: the Deconvolution attributes MXNet runs it with.
  std::map<std::string, std::string> DeconvolutionAttrs() const;
};

// Nearest: each input's factor (output height / its height), checked against the output's shape.
std::vector<int64_t> NearestScales(const Attrs& attrs, const std::vector<Shape>& inputs, const Shape& output);

}  // namespace qv
