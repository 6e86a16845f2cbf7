// LeakyReLU, as MXNet defines each act_type at inference:
//   leaky: x > 0 ? x : slope * x                 elu:  x > 0 ? x : slope * (exp(x) - 1)
//   prelu: x > 0 ? x : gamma[c] * x (c: axis 1)  selu: lambda * (x > 0 ? x : alpha * (exp(x) - 1))
//   rrelu: leaky with slope (lower_bound + upper_bound) / 2
//   gelu:  0.5 * x * (1 + erf(x / sqrt(2)))
#pragma once

#include "ops/op.h"

namespace qv {

struct LeakyReluParams {
  enum Type { kLeaky, kPRelu, kRRelu, kElu, kSelu, kGelu };
  Type type = kLeaky;
  float slope = 0.25f;  // leaky, elu; rrelu: the mean of its bounds

  static LeakyReluParams Parse(const Attrs& attrs);
};

// How prelu reads gamma over x: one slope per channel (axis 1, or axis 0 of 1-D data) for `outer`
// blocks of `channels` planes of `inner` values, or one slope for all when gamma holds one value.
struct PReluGeometry {
  int64_t outer = 1, channels = 1, inner = 1;
  bool shared = false;
};
PReluGeometry ResolvePRelu(const Shape& x, const Shape& gamma);

// SELU's constants (Klambauer et al.), as MXNet uses them.
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluLambda = 1.0507009873554804934193349852946;

}  // namespace qv
