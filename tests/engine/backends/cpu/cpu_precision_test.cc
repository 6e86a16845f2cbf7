// bfloat16 kernels against the reference (support/reference_ops.h). Data and weights are made exactly
// representable in bfloat16 first, so the runtime's own conversions of them are exact and what remains
// is the kernels' arithmetic. Products of bfloat16 values are exact in float32 and sums accumulate in
// float32: for y = sum(x_i * w_i) + b that costs at most K * 2^-24 * M, with M = sum |x_i * w_i| + |b|
// (>= |y|) and K, the terms summed, below 2^14 here: under 2^-10 * M. Each rounding of a value to
// bfloat16 (8 significant bits, to nearest) moves it by at most 2^-8 of its magnitude, so by at most
// 2^-8 * M. At most two roundings stand between an output and the reference: the output's own, and
// one of an operand computed in bfloat16 before (the residual sum's other convolution, the values an
// average pools, the convolution output an inner product reads). Every case is therefore within
// 2 * 2^-8 * M + 2^-10 * M < 3 * 2^-8 * M, the bound checked (for the residual sum M is both
// convolutions' M added; for pooling, the largest M in the window).
#include <cmath>

#include "engine/ops/op_test_util.h"
#include "ops/amp_cast.h"

using namespace qv_op_test;

namespace {

// Every value made exactly representable in bfloat16 (MXNet's amp_cast rounding, ops/amp_cast.h).
Tensor Rounded(Tensor t) {
  for (float& v : t.data) v = qv::RoundToBFloat16(v);
  return t;
}

Tensor Abs(Tensor t) {
  for (float& v : t.data) v = std::fabs(v);
  return t;
}

Tensor Relu(Tensor t) {
  for (float& v : t.data) v = std::max(v, 0.f);
  return t;
}

Tensor Sum(Tensor a, const Tensor& b) {
  for (size_t i = 0; i < a.data.size(); ++i) a.data[i] += b.data[i];
  return a;
}

// Every element within 3 * 2^-8 of its magnitude bound `m`.
void ExpectWithinBFloat16(const Tensor& got, const Tensor& want, const Tensor& m, const std::string& what) {
  REQUIRE(got.shape == want.shape);
  double worst_ratio = 0;
  int64_t worst = 0;
  for (int64_t i = 0; i < got.size(); ++i) {
    const double diff = std::fabs(static_cast<double>(got.data[i]) - want.data[i]);
    const double ratio = diff / (3 * std::ldexp(m.data[i], -8) + 1e-30);
    if (ratio > worst_ratio) worst_ratio = ratio, worst = i;
  }
  INFO(what << ": worst element " << worst << ": got " << got.data[worst] << ", want " << want.data[worst]
            << ", bound 3 * 2^-8 * " << m.data[worst] << " (used " << worst_ratio << " of it)");
  CHECK(worst_ratio <= 1.0);
}

// Runs the net in bfloat16 on x.
Tensor RunBFloat16(const Net& net, const Tensor& x) {
  CompiledGraph op(net.g.ToJson(), net.params, {{"precision", "bfloat16"}});
  return op.Run({x}).at(0);
}

// Rounds every parameter named in `names` to bfloat16 in place.
void RoundParams(Net& net, const std::vector<std::string>& names) {
  for (const auto& name : names) net.params.at(name) = Rounded(net.params.at(name));
}

bool CpuRunsBFloat16() {
  GraphBuilder g;
  g.Output(g.Op("relu", "relu0", {}, {g.Variable("data")}));
  const char* name = nullptr;
  QvSymbolHandle sym = nullptr;
  QvCachedOpHandle op = nullptr;
  const char* keys[] = {"precision"};
  const char* vals[] = {"auto"};
  qv_test::Check(QvSymbolCreateFromJSON(g.ToJson().c_str(), &sym), "QvSymbolCreateFromJSON");
  qv_test::Check(QvCreateCachedOpEx(sym, 0, nullptr, nullptr, 1, keys, vals, &op, 1), "QvCreateCachedOpEx");
  qv_test::Check(QvCachedOpGetPrecision(op, &name), "QvCachedOpGetPrecision");
  const bool bf16 = std::string(name) == "bfloat16";
  QvFreeCachedOp(op);
  QvSymbolFree(sym);
  return bf16;
}

struct ConvCase {
  Shape x;
  int64_t filters;
  ConvParams p;
  bool bias;
};

const std::vector<ConvCase> kConvCases = {
    {{1, 3, 15, 13}, 16, MakeConv(7, 7, 2, 2, 3, 3, 1, 1, 1), true},   // first layer: plain 3-channel input
    {{2, 16, 9, 9}, 32, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1), true},
    {{1, 64, 7, 7}, 24, MakeConv(1, 1, 1, 1, 0, 0, 1, 1, 1), false},  // 1x1
    {{1, 32, 9, 7}, 32, MakeConv(3, 3, 2, 2, 1, 1, 1, 1, 32), true},  // depthwise, stride 2
    {{2, 17, 8, 8}, 33, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1), false},  // channels off the 16-lane blocks
    {{1, 32, 8, 8}, 48, MakeConv(3, 3, 1, 1, 2, 2, 2, 2, 4), true},   // grouped, dilated
};

std::string Describe(const ConvCase& c) {
  return "x=" + ShapeStr(c.x) + " filters=" + std::to_string(c.filters) + " " + qv_op_test::Describe(c.p);
}

// The reference output and magnitude bound of conv node `name` on x (rounded data and weights).
std::pair<Tensor, Tensor> RefConvAndBound(const Net& net, const std::string& name, const Tensor& x,
                                          const ConvCase& c) {
  const Tensor want = net.RefConv(name, x, c.p, c.bias);
  const Tensor* bias = c.bias ? &net.params.at(name + "_bias") : nullptr;
  const Tensor abs_bias = bias ? Abs(*bias) : Tensor();
  const Tensor m = qv_ref::Convolution(Abs(x), Abs(net.params.at(name + "_weight")), bias ? &abs_bias : nullptr, c.p);
  return {want, m};
}

}  // namespace

TEST_CASE("bfloat16 convolutions (+ relu, + residual sum) match the reference within bfloat16's rounding",
          "[ops][precision]") {
  if (!CpuRunsBFloat16()) {
    WARN("not run: this CPU has no native bfloat16 instructions (capi.precision_without_bf16 covers the refusal)");
    return;
  }
  unsigned seed = 300;
  for (const ConvCase& c : kConvCases) {
    RunCase("conv + relu " + Describe(c), [&] {
      Net net(seed++);
      const int conv = net.Conv("conv0", net.g.Variable("data"), c.x[1], c.filters, c.p, c.bias);
      net.g.Output(net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {conv}));
      RoundParams(net, {"conv0_weight"});
      const Tensor x = Rounded(qv_test::Random(c.x, &net.rng));
      const auto [want, m] = RefConvAndBound(net, "conv0", x, c);
      ExpectWithinBFloat16(RunBFloat16(net, x), Relu(want), m, "conv + relu " + Describe(c));
    });
    RunCase("conv + conv residual sum " + Describe(c), [&] {
      Net net(seed++);
      const int data = net.g.Variable("data");
      const int a = net.Conv("conv0", data, c.x[1], c.filters, c.p, c.bias);
      const int b = net.Conv("conv1", data, c.x[1], c.filters, c.p, c.bias);
      net.g.Output(net.g.Op("elemwise_add", "add0", {}, {a, b}));
      RoundParams(net, {"conv0_weight", "conv1_weight"});
      const Tensor x = Rounded(qv_test::Random(c.x, &net.rng));
      const auto [want_a, m_a] = RefConvAndBound(net, "conv0", x, c);
      const auto [want_b, m_b] = RefConvAndBound(net, "conv1", x, c);
      ExpectWithinBFloat16(RunBFloat16(net, x), Sum(want_a, want_b), Sum(m_a, m_b), "conv + sum " + Describe(c));
    });
  }
}

TEST_CASE("bfloat16 pooling after a bfloat16 convolution matches the reference", "[ops][precision]") {
  if (!CpuRunsBFloat16()) {
    WARN("not run: this CPU has no native bfloat16 instructions");
    return;
  }
  const ConvCase c = kConvCases[1];
  for (const bool is_max : {true, false}) {
    const std::string what = std::string(is_max ? "max" : "avg") + " pooling after conv " + Describe(c);
    RunCase(what, [&] {
      Net net(is_max ? 41 : 42);
      const int conv = net.Conv("conv0", net.g.Variable("data"), c.x[1], c.filters, c.p, c.bias);
      PoolParams p;
      p.is_max = is_max;
      p.kernel_h = p.kernel_w = 3;
      p.stride_h = p.stride_w = 2;
      p.pad_h = p.pad_w = 1;
      net.g.Output(net.g.Op("Pooling", "pool0",
                            {{"pool_type", is_max ? "max" : "avg"}, {"kernel", "(3, 3)"}, {"stride", "(2, 2)"},
                             {"pad", "(1, 1)"}},
                            {conv}));
      RoundParams(net, {"conv0_weight"});
      const Tensor x = Rounded(qv_test::Random(c.x, &net.rng));
      const auto [want, m] = RefConvAndBound(net, "conv0", x, c);
      PoolParams bound = p;
      bound.is_max = true;  // an average is bounded by its window's largest bound
      ExpectWithinBFloat16(RunBFloat16(net, x), qv_ref::Pooling(want, p), qv_ref::Pooling(m, bound), what);
    });
  }
}

TEST_CASE("a float32 loop kernel after a bfloat16 convolution reads float32 data", "[ops][precision]") {
  if (!CpuRunsBFloat16()) {
    WARN("not run: this CPU has no native bfloat16 instructions");
    return;
  }
  // softsign (no oneDNN primitive: a plain loop) is 1-Lipschitz, so it keeps the convolution's bound.
  const ConvCase c = kConvCases[1];
  RunCase("softsign after conv " + Describe(c), [&] {
    Net net(61);
    const int conv = net.Conv("conv0", net.g.Variable("data"), c.x[1], c.filters, c.p, c.bias);
    net.g.Output(net.g.Op("Activation", "act0", {{"act_type", "softsign"}}, {conv}));
    RoundParams(net, {"conv0_weight"});
    const Tensor x = Rounded(qv_test::Random(c.x, &net.rng));
    auto [want, m] = RefConvAndBound(net, "conv0", x, c);
    for (float& v : want.data) v = v / (1.f + std::fabs(v));
    ExpectWithinBFloat16(RunBFloat16(net, x), want, m, "softsign after conv " + Describe(c));
  });
}

TEST_CASE("bfloat16 fully connected layers match the reference, on 2-D data and after a convolution",
          "[ops][precision]") {
  if (!CpuRunsBFloat16()) {
    WARN("not run: this CPU has no native bfloat16 instructions");
    return;
  }
  RunCase("FullyConnected on (5, 300)", [&] {
    Net net(51);
    net.Param("fc0_weight", {10, 300}, -0.1f, 0.1f);
    net.Param("fc0_bias", {10});
    net.g.Output(net.g.Op("FullyConnected", "fc0", {{"num_hidden", "10"}},
                          {net.g.Variable("data"), net.g.Variable("fc0_weight"), net.g.Variable("fc0_bias")}));
    RoundParams(net, {"fc0_weight"});
    const Tensor x = Rounded(qv_test::Random({5, 300}, &net.rng));
    const Tensor& w = net.params.at("fc0_weight");
    const Tensor& b = net.params.at("fc0_bias");
    const Tensor abs_b = Abs(b);
    ExpectWithinBFloat16(RunBFloat16(net, x), qv_ref::FullyConnected(x, w, &b, true),
                         qv_ref::FullyConnected(Abs(x), Abs(w), &abs_b, true), "FullyConnected (5, 300)");
  });
  const ConvCase c = kConvCases[1];
  RunCase("FullyConnected flattening a convolution's output", [&] {
    Net net(52);
    const int conv = net.Conv("conv0", net.g.Variable("data"), c.x[1], c.filters, c.p, false);
    const int64_t k = c.filters * c.x[2] * c.x[3];
    net.Param("fc0_weight", {7, k}, -0.05f, 0.05f);
    net.g.Output(net.g.Op("FullyConnected", "fc0", {{"num_hidden", "7"}, {"no_bias", "True"}},
                          {conv, net.g.Variable("fc0_weight")}));
    RoundParams(net, {"conv0_weight", "fc0_weight"});
    const Tensor x = Rounded(qv_test::Random(c.x, &net.rng));
    ConvCase no_bias = c;
    no_bias.bias = false;
    const auto [conv_out, conv_m] = RefConvAndBound(net, "conv0", x, no_bias);
    // The inner product reads the convolution's output rounded to bfloat16: its bound is that of
    // sum |w| * conv_m.
    const Tensor& w = net.params.at("fc0_weight");
    const Tensor want = qv_ref::FullyConnected(conv_out, w, nullptr, true);
    const Tensor m = qv_ref::FullyConnected(conv_m, Abs(w), nullptr, true);
    ExpectWithinBFloat16(RunBFloat16(net, x), want, m, "FullyConnected after a convolution");
  });
}
