#include "ops/amp_cast.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "common/error.h"
#include "ops/bfloat16_bits.h"

namespace qv {

AmpTarget ParseAmpCast(const Attrs& attrs) {
  const std::string dtype = attrs.Require("dtype");
  if (dtype == "float32") return AmpTarget::kFloat32;
  if (dtype == "float16") return AmpTarget::kFloat16;
  if (dtype == "bfloat16") return AmpTarget::kBFloat16;
  throw Error(Status::kUnsupported, attrs.Where() + "dtype '" + dtype +
                                        "' is not supported (Quiver computes in float32 and casts only to "
                                        "float32, float16 or bfloat16)");
}

// Why cast_narrow=True is refused: MXNet then casts every input to the narrowest type among them, so
// a float32 input is rounded exactly when some other input is bfloat16 or float16 in MXNet's type
// inference. Quiver keeps all values in float32 and does not track those types, so it cannot tell
// whether MXNet rounds. MXNet's AMP conversion never writes cast_narrow=True (only a hand-written
// symbol does), while the default, cast to the widest type, never changes a value: widening is exact,
// and inputs that are all bfloat16 stay bfloat16. That default is therefore the identity here.
int ParseAmpMultiCast(const Attrs& attrs) {
  const int64_t n = attrs.RequireInt("num_outputs");
  Check(n >= 1 && n <= 4096, Status::kParse,
        attrs.Where() + "num_outputs must be between 1 and 4096, got " + std::to_string(n));
  Check(!attrs.GetBool("cast_narrow", false), Status::kUnsupported,
        attrs.Where() + "cast_narrow=True is not supported: Quiver computes in float32 and cannot tell which "
                        "inputs MXNet holds in a narrower type (MXNet's AMP conversion writes cast_narrow=False)");
  return static_cast<int>(n);
}

float RoundToBFloat16(float x) {
  uint32_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  bits = BFloat16RoundedBits(bits);
  float y = 0;
  std::memcpy(&y, &bits, sizeof y);
  return y;
}

float RoundToFloat16(float x) {
  if (std::isnan(x)) return std::copysign(std::numeric_limits<float>::quiet_NaN(), x);
  const float a = std::fabs(x);
  constexpr float kOverflow = 65520.f;  // halfway between float16's largest finite 65504 and 2^16
  if (a >= kOverflow) return std::copysign(std::numeric_limits<float>::infinity(), x);
  // float16 keeps 11 significant bits down to 2^-14; below that its spacing is a fixed 2^-24.
  // Scaling by powers of two is exact, and nearbyint rounds ties to even in the default mode.
  int exponent = 0;
  std::frexp(a, &exponent);  // a = m * 2^exponent, m in [0.5, 1)
  const int quantum = a < std::ldexp(1.f, -14) ? -24 : exponent - 11;
  const float rounded = std::ldexp(std::nearbyint(std::ldexp(a, -quantum)), quantum);
  return std::copysign(rounded, x);
}

float RoundTo(AmpTarget target, float x) {
  switch (target) {
    case AmpTarget::kFloat32: return x;
    case AmpTarget::kFloat16: return RoundToFloat16(x);
    case AmpTarget::kBFloat16: return RoundToBFloat16(x);
  }
  return x;
}

namespace {

class AmpCastOp : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ParseAmpCast(attrs);
    ExpectInputs(attrs, in, 1);
    ExpectFloat32(attrs, in);
    return {in[0]};
  }
};

// N inputs, N outputs of the same types.
class AmpMultiCastOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs& attrs) const override {
    std::vector<std::string> names;
    for (int i = 0; i < ParseAmpMultiCast(attrs); ++i) names.push_back("data" + std::to_string(i));
    return names;
  }
  int NumOutputs(const Attrs& attrs) const override { return ParseAmpMultiCast(attrs); }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, static_cast<size_t>(ParseAmpMultiCast(attrs)));
    ExpectFloat32(attrs, in);
    return in;
  }
};

const OpRegistrar kRegister({{"amp_cast"}}, new AmpCastOp);
const OpRegistrar kRegisterMulti({{"amp_multicast"}}, new AmpMultiCastOp);

}  // namespace
}  // namespace qv
