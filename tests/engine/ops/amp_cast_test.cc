// amp_cast and amp_multicast (MXNet's AMP casts) in float32 storage: the roundings against independent
// references and against bit patterns MXNet 1.9.1 itself produced, the operators alone and inside a
// convolution block as MXNet's AMP conversion writes it, and their errors.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "engine/ops/op_test_util.h"
#include "ops/amp_cast.h"

using namespace qv_op_test;

namespace {

uint32_t BitsOf(float x) {
  uint32_t b = 0;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

float FloatOf(uint32_t b) {
  float x = 0;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

// The nearest bfloat16 by comparing distances (not by bit tricks): the two bfloat16 neighbours of a
// normal x are its truncation and the next one up in magnitude; a tie goes to the even one. Outside
// normal numbers: subnormals to a signed zero, NaN to a quiet NaN, infinities kept (oneDNN's rules).
uint32_t RefBFloat16Bits(uint32_t bits) {
  const float x = FloatOf(bits);
  if (std::isnan(x)) return (bits & 0xffff0000u) | 0x00400000u;
  if (std::isinf(x)) return bits;
  if (std::fpclassify(x) == FP_SUBNORMAL || x == 0) return bits & 0x80000000u;
  const uint32_t down = bits & 0xffff0000u, up = down + 0x10000u;  // up may be infinity: still the neighbour
  const double d_down = std::fabs(static_cast<double>(x) - FloatOf(down));
  const double d_up = std::isinf(FloatOf(up)) ? std::ldexp(1.0, 128) - std::fabs(static_cast<double>(x))
                                               : std::fabs(static_cast<double>(FloatOf(up)) - x);
  if (d_down != d_up) return d_down < d_up ? down : up;
  return ((down >> 16) & 1u) == 0 ? down : up;
}

// Every finite float16 value, ascending, decoded from its bit pattern.
const std::vector<double>& Float16Values() {
  static const std::vector<double> values = [] {
    std::vector<double> v;
    for (uint32_t h = 0; h < 0x7c00; ++h) {
      const uint32_t exponent = h >> 10, mantissa = h & 0x3ff;
      v.push_back(exponent == 0 ? std::ldexp(mantissa, -24) : std::ldexp(1024 + mantissa, static_cast<int>(exponent) - 25));
    }
    return v;
  }();
  return values;
}

// The nearest float16 by search over all of them; ties to the even bit pattern; 65520 and beyond
// (half-way to 2^16 or more) overflow to infinity.
float RefFloat16(float x) {
  if (std::isnan(x)) return x;
  const double a = std::fabs(static_cast<double>(x));
  if (a >= 65520.0) return std::copysign(std::numeric_limits<float>::infinity(), x);
  const std::vector<double>& v = Float16Values();
  const size_t hi = static_cast<size_t>(std::lower_bound(v.begin(), v.end(), a) - v.begin());
  if (hi == v.size()) return std::copysign(static_cast<float>(v.back()), x);  // above 65504, below 65520
  if (v[hi] == a) return std::copysign(static_cast<float>(a), x);
  const size_t lo = hi - 1;
  const double d_lo = a - v[lo], d_hi = v[hi] - a;
  const size_t pick = d_lo < d_hi ? lo : d_hi < d_lo ? hi : (lo % 2 == 0 ? lo : hi);
  return std::copysign(static_cast<float>(v[pick]), x);
}

Tensor Map(const Tensor& x, float (*f)(float)) {
  Tensor y = x;
  for (float& v : y.data) v = f(v);
  return y;
}

float RefBFloat16(float x) { return FloatOf(RefBFloat16Bits(BitsOf(x))); }

// Values of every magnitude, ties and near-ties included: random bit patterns of finite floats.
Tensor SpreadTensor(const Shape& shape, unsigned seed) {
  std::mt19937 rng(seed);
  Tensor t = qv_test::Random(shape, &rng, -1.f, 1.f);
  for (float& v : t.data) {
    uint32_t b = static_cast<uint32_t>(rng());
    if (((b >> 23) & 0xff) == 0xff) b &= ~(1u << 30);  // keep it finite
    if (rng() % 4 == 0) b = (b & 0xffff0000u) | 0x8000u;  // an exact tie
    v = FloatOf(b);
  }
  return t;
}

void ExpectSameBits(const Tensor& got, const Tensor& want, const std::string& what) {
  REQUIRE(got.data.size() == want.data.size());
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < got.data.size(); ++i)
    if (BitsOf(got.data[i]) != BitsOf(want.data[i]) && !(std::isnan(got.data[i]) && std::isnan(want.data[i])))
      if (bad++ == 0) first = i;
  INFO(what << ": " << bad << " elements differ; first at " << first << ": got " << got.data[first] << ", want "
            << want.data[first]);
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE("bfloat16 rounding reproduces MXNet 1.9.1's amp_cast bit for bit", "[ops][amp_cast]") {
  // Pairs (float32 bits, MXNet's result widened back to float32), from mx.nd.amp_cast on the CPU.
  const std::vector<std::pair<uint32_t, uint32_t>> mxnet = {
      {0x3f800000, 0x3f800000}, {0x3f808000, 0x3f800000},  // a tie goes down to the even 1.0
      {0x3f818000, 0x3f820000},                            // a tie goes up to the even neighbour
      {0x3f808008, 0x3f810000}, {0x3f804000, 0x3f800000}, {0xbf808000, 0xbf800000}, {0xbf818000, 0xbf820000},
      {0x7f7fc99e, 0x7f800000}, {0x7f7f8000, 0x7f800000},  // overflow rounds to infinity
      {0x7f800000, 0x7f800000}, {0xff800000, 0xff800000}, {0x3b808000, 0x3b800000},
      {0x000116c2, 0x00000000}, {0x800116c2, 0x80000000}, {0x807fffff, 0x80000000},  // subnormals: signed zero
      {0x7fc00000, 0x7fc00000}, {0x7fc00001, 0x7fc00000}, {0x7f800001, 0x7fc00000},  // NaNs stay quiet NaNs
      {0xffc12345, 0xffc10000}, {0x7fa00000, 0x7fe00000},
  };
  for (const auto& [in, out] : mxnet) {
    INFO("input 0x" << std::hex << in);
    CHECK(BitsOf(qv::RoundToBFloat16(FloatOf(in))) == out);
    CHECK(RefBFloat16Bits(in) == out);
  }
  std::mt19937 rng(7);
  for (int i = 0; i < 200000; ++i) {
    const uint32_t bits = static_cast<uint32_t>(rng());
    INFO("input 0x" << std::hex << bits);
    REQUIRE(BitsOf(qv::RoundToBFloat16(FloatOf(bits))) == RefBFloat16Bits(bits));
  }
}

TEST_CASE("float16 rounding matches MXNet's amp_cast and a search over every float16", "[ops][amp_cast]") {
  // (input, MXNet 1.9.1's amp_cast to float16, as float16 bits).
  const std::vector<std::pair<float, uint16_t>> mxnet = {
      {1.f + 0x1p-11f, 0x3c00}, {1.f + 3 * 0x1p-11f, 0x3c02}, {65520.f, 0x7c00}, {65519.f, 0x7bff},
      {1e-8f, 0x0000},          {3e-5f, 0x01f7},               {6.1e-5f + 1e-9f, 0x03ff}, {-INFINITY, 0xfc00},
  };
  for (const auto& [x, h] : mxnet) {
    INFO("input " << x);
    const uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ff;
    const double magnitude = e == 0x1f ? INFINITY : e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, static_cast<int>(e) - 25);
    const float want = static_cast<float>((h & 0x8000) ? -magnitude : magnitude);
    CHECK(qv::RoundToFloat16(x) == want);
    CHECK(RefFloat16(x) == want);
  }
  CHECK(std::isnan(qv::RoundToFloat16(NAN)));
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> exponent(-30.f, 17.f), mantissa(1.f, 2.f);
  for (int i = 0; i < 100000; ++i) {
    float x = std::ldexp(mantissa(rng), static_cast<int>(exponent(rng)));
    if (i % 3 == 0) x = static_cast<float>(Float16Values()[rng() % 0x7c00] + (rng() % 2 ? 1 : -1) * std::ldexp(1.0, -25));
    if (i % 2) x = -x;
    INFO("input " << x);
    REQUIRE(BitsOf(qv::RoundToFloat16(x)) == BitsOf(RefFloat16(x)));
  }
}

TEST_CASE("amp_cast rounds to bfloat16 or float16 and keeps float32", "[ops][amp_cast]") {
  unsigned seed = 20;
  for (const Shape& shape : std::vector<Shape>{{1000}, {2, 3, 17, 5}, {1, 1}}) {
    const Tensor x = SpreadTensor(shape, seed++);
    const std::string dims = qv_ref::ShapeToString(shape);
    ExpectSameBits(RunUnary("amp_cast", {{"dtype", "bfloat16"}}, x), Map(x, RefBFloat16), "bfloat16 " + dims);
    ExpectSameBits(RunUnary("amp_cast", {{"dtype", "float16"}}, x), Map(x, RefFloat16), "float16 " + dims);
    ExpectSameBits(RunUnary("amp_cast", {{"dtype", "float32"}}, x), x, "float32 " + dims);
  }
}

TEST_CASE("amp_multicast passes every input through", "[ops][amp_cast]") {
  Net net(30);
  const int a = net.g.Variable("data"), b = net.g.Variable("other");
  const int cast = net.g.Op("amp_multicast", "mc", {{"num_outputs", "2"}}, {a, b});
  net.g.Output(net.g.Op("elemwise_add", "sum", {}, {{cast, 0}, {cast, 1}}));
  net.g.Output({cast, 1});
  const Tensor x = RandomTensor({2, 7}, 1), y = RandomTensor({2, 7}, 2);
  const std::vector<Tensor> out = Run(net.g, {x, y});
  REQUIRE(out.size() == 2);
  Tensor sum = x;
  for (size_t i = 0; i < sum.data.size(); ++i) sum.data[i] += y.data[i];
  ExpectSameBits(out[0], sum, "sum of the casts");
  ExpectSameBits(out[1], y, "second output");
}

// data -> amp_cast(bf16) -> Convolution(amp_cast(w)) -> BatchNorm -> relu -> amp_cast(float32), as
// MXNet's AMP conversion writes a block: Quiver rounds data and weight, and computes the rest in
// float32 (folded and fused as any convolution block).
TEST_CASE("a convolution block as MXNet's AMP writes it rounds its data and weight", "[ops][amp_cast][fusion]") {
  for (bool stored_bf16 : {false, true}) {
    const std::string what = stored_bf16 ? "weight stored rounded, no cast" : "weight cast in the graph";
    RunCase(what, [&] {
      Net net(40);
      const ConvParams p = MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1);
      const int data = net.g.Variable("data");
      const int data16 = net.g.Op("amp_cast", "data_amp_cast_bfloat16", {{"dtype", "bfloat16"}}, {data});
      net.Param("c_weight", {6, 4, 3, 3}, -0.3f, 0.3f);
      int weight = net.g.Variable("c_weight");
      if (stored_bf16) net.params["c_weight"] = Map(net.params["c_weight"], RefBFloat16);
      else weight = net.g.Op("amp_cast", "c_weight_amp_cast_bfloat16", {{"dtype", "bfloat16"}}, {weight});
      const int conv = net.Conv("c", data16, 4, 6, p, false, weight);
      const int bn = net.BatchNorm("bn", conv, 6, {{"fix_gamma", "False"}, {"eps", "1e-5"}});
      const int relu = net.g.Op("Activation", "relu", {{"act_type", "relu"}}, {bn});
      net.g.Output(net.g.Op("amp_cast", "out_amp_cast_float32", {{"dtype", "float32"}}, {relu}));
      const Tensor x = RandomTensor({2, 4, 9, 8}, 3);
      const Tensor w16 = Map(net.params.at("c_weight"), RefBFloat16);
      const Tensor want = qv_ref::Activation(
          net.RefBatchNorm("bn", qv_ref::Convolution(Map(x, RefBFloat16), w16, nullptr, p), 1e-5f, false), "relu");
      ExpectClose(RunSingleInput(net, x).at(0), want, what);
    });
  }
}

TEST_CASE("amp_cast and amp_multicast refuse what they cannot reproduce, naming the node", "[ops][amp_cast]") {
  const Tensor x = RandomTensor({1, 3}, 1);
  ExpectMessage(FailureOf([&] { RunUnary("amp_cast", {{"dtype", "int8"}}, x); }), "op0", {"dtype 'int8'", "not supported"});
  ExpectMessage(FailureOf([&] { RunUnary("amp_cast", {}, x); }), "op0", {"dtype", "missing"});
  ExpectMessage(FailureOf([&] { RunUnary("amp_multicast", {{"num_outputs", "1"}, {"cast_narrow", "True"}}, x); }), "op0",
                {"cast_narrow", "not supported"});
  ExpectMessage(FailureOf([&] { RunUnary("amp_multicast", {}, x); }), "op0", {"num_outputs", "missing"});
  ExpectMessage(FailureOf([&] { RunUnary("amp_multicast", {{"num_outputs", "2"}}, x); }), "op0", {});
  ExpectMessage(FailureOf([&] { RunUnary("amp_multicast", {{"num_outputs", "0"}}, x); }), "op0", {"num_outputs"});
}
