// int8 convolutions and inner products (precision int8, ops/int8_hints.h) against a plain reference of
// the same quantization: data rounded to its integers with the hinted range (or the one measured on it),
// weights to int8 with max |w| / levels per output channel (or per tensor), the integer products summed
// exactly (qv_ref on integer-valued floats: every sum here stays below 2^24), then scaled back, biased,
// activated and, for an int8 output, rounded to its steps. The runtime computes the same quantities with
// float32 scales; where a value lies within float32 rounding of a half step the two may round to
// neighbouring steps, so every output is within one output step of the reference (for float32
// outputs: 1e-5 of the magnitude), and almost all (99%) equal it. On a CPU without int8 dot products
// (AVX2, or ONEDNN_MAX_CPU_ISA=AVX2) the weights are on the 7-bit grid the runtime uses there
// (backends/cpu/int8_support.h: QuantizeWeights), and the sums are still exact.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include "backends/cpu/runtime/cpu_precision.h"
#include "engine/ops/convolution_3d_reference.h"
#include "ops/int8_hints.h"

using namespace qv_op_test;

namespace {

struct Quant {
  float range;  // 0: measured on the data
  float levels;
  bool is_unsigned;
};

float RoundToStep(float v, float step, bool is_unsigned) {
  const float q = std::nearbyint(v / step);
  return std::clamp(q, is_unsigned ? 0.f : -128.f, is_unsigned ? 255.f : 127.f);
}

float StepOf(const Quant& q, const Tensor& t) {
  float range = q.range;
  if (range == 0)
    for (float v : t.data) range = std::max(range, std::fabs(v));
  return range / q.levels;
}

// The integers a tensor is stored as, and their step.
std::pair<Tensor, float> Integers(Tensor t, const Quant& q) {
  const float step = StepOf(q, t);
  for (float& v : t.data) v = RoundToStep(v, step, q.is_unsigned);
  return {t, step};
}

// Weights as int8 per output channel (axis 0) or per tensor, and each channel's step: `levels` steps
// over max |w| as the model says, or, where oneDNN's products would saturate with 8 bits, 63 (7 bits)
// over each channel's own max |w|.
std::pair<Tensor, std::vector<float>> WeightIntegers(Tensor w, bool model_channelwise, float model_levels) {
  const bool dot_products = qv::cpu::HasInt8DotProducts();
  const float levels = dot_products ? model_levels : 63.f;
  const bool channelwise = model_channelwise || !dot_products;
  const int64_t channels = w.shape[0], per = w.size() / channels;
  std::vector<float> steps(channels);
  float global = 0;
  for (float v : w.data) global = std::max(global, std::fabs(v));
  for (int64_t c = 0; c < channels; ++c) {
    float largest = global;
    if (channelwise) {
      largest = 0;
      for (int64_t i = 0; i < per; ++i) largest = std::max(largest, std::fabs(w.data[c * per + i]));
    }
    const float inverse = levels / largest;
    steps[c] = 1.f / inverse;
    for (int64_t i = 0; i < per; ++i) w.data[c * per + i] = std::clamp(std::nearbyint(w.data[c * per + i] * inverse), -128.f, 127.f);
  }
  return {w, steps};
}

// Integer accumulations (channels on axis 1 of `acc`) scaled back to values, plus the bias.
Tensor Rescale(Tensor acc, float data_step, const std::vector<float>& weight_steps, const Tensor* bias) {
  const int64_t channels = acc.shape[1];
  const int64_t inner = acc.size() / acc.shape[0] / channels;
  for (int64_t i = 0; i < acc.size(); ++i) {
    const int64_t c = (i / inner) % channels;
    acc.data[i] = acc.data[i] * data_step * weight_steps[c] + (bias ? bias->data[c] : 0.f);
  }
  return acc;
}

// `got` against `want`: within `step` (an output step; 0: a float32 output) everywhere, 99% exact.
void ExpectWithinOneStep(const Tensor& got, const Tensor& want, float step, const std::string& what) {
  REQUIRE(got.shape == want.shape);
  float magnitude = 0;
  for (float v : want.data) magnitude = std::max(magnitude, std::fabs(v));
  const float tolerance = step > 0 ? step * 1.001f : 1e-5f * magnitude;
  const float exact = step > 0 ? step * 1e-3f : 1e-6f * magnitude;
  int64_t off = 0, worst = 0;
  for (int64_t i = 0; i < got.size(); ++i) {
    const float diff = std::fabs(got.data[i] - want.data[i]);
    off += diff > exact;
    if (diff > std::fabs(got.data[worst] - want.data[worst])) worst = i;
  }
  INFO(what << ": worst element " << worst << ": got " << got.data[worst] << ", want " << want.data[worst]
            << ", step " << step << "; " << off << " of " << got.size() << " not exact");
  CHECK(std::fabs(got.data[worst] - want.data[worst]) <= tolerance);
  CHECK(off <= got.size() / 100);
}

AttrMap Hints(const Quant& in, const std::string& out_type, float out_range, bool channelwise, float weight_levels,
              int fused) {
  AttrMap a = {{qv::int8_attr::kInType, in.is_unsigned ? "uint8" : "int8"},
               {qv::int8_attr::kInLevels, std::to_string(in.levels)},
               {qv::int8_attr::kOutType, out_type},
               {qv::int8_attr::kWeightLevels, std::to_string(weight_levels)},
               {qv::int8_attr::kChannelwise, channelwise ? "true" : "false"},
               {qv::int8_attr::kFusedOps, std::to_string(fused)}};
  if (in.range > 0) a[qv::int8_attr::kInRange] = std::to_string(in.range);
  if (out_type != "float32") a[qv::int8_attr::kOutRange] = std::to_string(out_range);
  return a;
}

Tensor RunInt8(const Net& net, const Tensor& x) {
  CompiledGraph op(net.g.ToJson(), net.params, {{"precision", "int8"}});
  return op.Run({x}).at(0);
}

// The smallest int8 model: one inner product.
void CompileTinyInt8Model() {
  GraphBuilder g;
  g.Output(g.Op("FullyConnected", "fc0",
                {{"num_hidden", "1"}, {"no_bias", "True"}, {qv::int8_attr::kInType, "int8"}, {qv::int8_attr::kOutType, "float32"}},
                {g.Variable("data"), g.Variable("fc0_weight")}));
  CompiledGraph op(g.ToJson(), {{"fc0_weight", Tensor{{1, 1}, {1.f}}}}, {{"precision", "int8"}});
}

// False (saying why) on a CPU without AVX2, where int8 is refused; any other refusal fails.
bool CpuRunsInt8() {
  try {
    CompileTinyInt8Model();
    return true;
  } catch (const std::exception& e) {
    if (std::string(e.what()).find("precision 'int8' needs AVX2") == std::string::npos) FAIL(e.what());
    WARN("not run: " << e.what());
    return false;
  }
}

struct Int8ConvCase {
  std::string what;
  Shape x;
  int64_t filters;
  ConvParams p;
  Quant in;
  std::string out_type;  // uint8 (after a ReLU), int8 or float32
  bool channelwise;
};

const std::vector<Int8ConvCase> kCases = {
    // Without int8 dot products first layers (1-4 channels, kernel rows of 9 bytes or more) and 1x1
    // layers with at least as many filters as channels take the matrix-product kernel
    // (backends/cpu/kernels/gemm_conv_int8_avx2.h): int8 and uint8 data, padding on every side, kernel
    // rows of 9-33 bytes and more, tiles of 32 filters and fewer, widths leaving 0, 1 or 2 pixels after
    // tiles of 3, every output type.
    {"first layer, uint8 data, ReLU into uint8", {1, 3, 15, 13}, 16, MakeConv(7, 7, 2, 2, 3, 3, 1, 1, 1),
     {1.5f, 255.5f, true}, "uint8", true},
    {"first layer 7x7 stride 2, int8 data measured per run, int8 output", {2, 3, 17, 12}, 32,
     MakeConv(7, 7, 2, 2, 3, 3, 1, 1, 1), {0, 127.5f, false}, "int8", true},
    {"first layer 5x5, four channels, float32 output", {1, 4, 9, 10}, 24, MakeConv(5, 5, 1, 1, 2, 2, 1, 1, 1),
     {2.5f, 127.5f, false}, "float32", false},
    {"first layer 11x11 stride 4, three channels, 40 filters", {1, 3, 23, 45}, 40, MakeConv(11, 11, 4, 4, 2, 2, 1, 1, 1),
     {2.f, 127.5f, false}, "int8", true},
    {"first layer 3x3 stride 2 (MobileNets')", {1, 3, 11, 9}, 32, MakeConv(3, 3, 2, 2, 1, 1, 1, 1, 1),
     {2.f, 127.5f, false}, "int8", true},
    {"first layer 3x3 over one channel (oneDNN's kernel)", {1, 1, 8, 9}, 16, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1),
     {2.f, 127.5f, false}, "int8", true},
    {"1x1 expansion, uint8 data, ReLU into uint8", {2, 16, 5, 7}, 96, MakeConv(1, 1, 1, 1, 0, 0, 1, 1, 1),
     {1.5f, 255.5f, true}, "uint8", true},
    {"1x1 expansion, int8 data measured per run, int8 output", {1, 24, 4, 8}, 144, MakeConv(1, 1, 1, 1, 0, 0, 1, 1, 1),
     {0, 127.5f, false}, "int8", true},
    {"1x1 expansion into 120 filters (a last block of 24), int8 output", {1, 8, 3, 5}, 120,
     MakeConv(1, 1, 1, 1, 0, 0, 1, 1, 1), {2.f, 127.5f, false}, "int8", true},
    {"1x1 expansion over 160 channels, float32 output", {1, 160, 3, 3}, 200, MakeConv(1, 1, 1, 1, 0, 0, 1, 1, 1),
     {2.f, 127.5f, false}, "float32", false},
    {"int8 data measured per run, int8 output", {2, 16, 9, 9}, 32, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1),
     {0, 127.5f, false}, "int8", true},
    {"one weight scale, float32 output", {1, 24, 7, 7}, 20, MakeConv(1, 1, 1, 1, 0, 0, 1, 1, 1),
     {2.5f, 127.5f, false}, "float32", false},
    // Without int8 dot products these take the AVX2 depthwise kernel (backends/cpu/kernels/depthwise_int8_avx2.h):
    // strides 1 and 2, odd and even sizes, widths with and without a remainder after 4 pixels, two
    // images, every output type.
    {"depthwise, stride 2", {1, 32, 9, 7}, 32, MakeConv(3, 3, 2, 2, 1, 1, 1, 1, 32), {2.f, 127.5f, false}, "int8",
     true},
    {"depthwise 3x3 stride 2, uint8 data, two images, ReLU into uint8", {2, 16, 10, 12}, 16,
     MakeConv(3, 3, 2, 2, 1, 1, 1, 1, 16), {1.5f, 255.5f, true}, "uint8", true},
    {"depthwise 3x3 stride 2, int8 data measured per run, float32 output", {1, 8, 7, 17}, 8,
     MakeConv(3, 3, 2, 2, 1, 1, 1, 1, 8), {0, 127.5f, false}, "float32", true},
    {"depthwise 3x3, uint8 data, ReLU into uint8", {2, 24, 7, 9}, 24, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 24),
     {1.5f, 255.5f, true}, "uint8", true},
    {"depthwise 3x3, int8 data measured per run, int8 output", {1, 16, 5, 8}, 16, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 16),
     {0, 127.5f, false}, "int8", true},
    {"depthwise 3x3, float32 output", {1, 8, 4, 3}, 8, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 8), {2.5f, 127.5f, false},
     "float32", true},
};

}  // namespace

TEST_CASE("int8 convolutions match the reference quantization within one output step", "[ops][int8]") {
  if (!CpuRunsInt8()) return;
  unsigned seed = 500;
  for (const Int8ConvCase& c : kCases) {
    RunCase(c.what, [&] {
      Net net(seed++);
      const bool relu = c.out_type == "uint8";
      const Tensor x = qv_test::Random(c.x, &net.rng, c.in.is_unsigned ? 0.f : -2.f, 2.f);
      const float out_range = 1.7f;
      int conv = net.Conv("conv0", net.g.Variable("data"), c.x[1], c.filters, c.p, true, -1,
                          Hints(c.in, c.out_type, out_range, c.channelwise, 127.5f, relu ? 1 : 0));
      if (relu) conv = net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {conv});
      net.g.Output(conv);

      const auto [xq, x_step] = Integers(x, c.in);
      const auto [wq, w_steps] = WeightIntegers(net.params.at("conv0_weight"), c.channelwise, 127.5f);
      Tensor want = Rescale(qv_ref::Convolution(xq, wq, nullptr, c.p), x_step, w_steps, &net.params.at("conv0_bias"));
      float step = 0;
      if (c.out_type != "float32") {
        const Quant out{out_range, qv::Int8Hints::DataLevels(relu ? qv::DType::kUInt8 : qv::DType::kInt8), relu};
        step = out_range / out.levels;
        for (float& v : want.data) v = RoundToStep(relu ? std::max(v, 0.f) : v, step, relu) * step;
      }
      ExpectWithinOneStep(RunInt8(net, x), want, step, c.what);
    });
  }
}

TEST_CASE("Quiver's AVX2 int8 kernels take depthwise 3x3 layers and first layers and 1x1 expansions exactly where int8 dot products are missing",
          "[ops][int8]") {
  if (!CpuRunsInt8()) return;
  const bool dot_products = qv::cpu::HasInt8DotProducts();
  struct Case {
    std::string what;
    Shape x;
    int64_t filters;
    ConvParams p;
    bool clip;  // relu6-like, else ReLU
    std::string kernel;
  };
  const std::vector<Case> cases = {
      {"depthwise, ReLU into uint8", {2, 32, 10, 11}, 32, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 32), false,
       "depthwise_3x3_int8:avx2"},
      {"depthwise, clip into uint8", {2, 32, 10, 11}, 32, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 32), true,
       "depthwise_3x3_int8:avx2"},
      {"depthwise stride 2, clip into uint8", {1, 32, 11, 10}, 32, MakeConv(3, 3, 2, 2, 1, 1, 1, 1, 32), true,
       "depthwise_3x3_int8:avx2"},
      {"first layer 7x7 stride 2, ReLU into uint8", {1, 3, 20, 17}, 64, MakeConv(7, 7, 2, 2, 3, 3, 1, 1, 1), false,
       "gemm_conv_int8:avx2"},
      {"first layer 7x7 stride 2, clip into uint8", {2, 3, 12, 13}, 32, MakeConv(7, 7, 2, 2, 3, 3, 1, 1, 1), true,
       "gemm_conv_int8:avx2"},
      {"first layer 3x3 stride 2 (MobileNets'), clip into uint8", {1, 3, 16, 16}, 32,
       MakeConv(3, 3, 2, 2, 1, 1, 1, 1, 1), true, "gemm_conv_int8:avx2"},
      {"1x1 expansion, clip into uint8", {1, 32, 7, 14}, 192, MakeConv(1, 1, 1, 1, 0, 0, 1, 1, 1), true,
       "gemm_conv_int8:avx2"},
      {"1x1 as many filters as channels, ReLU into uint8", {1, 32, 6, 6}, 32, MakeConv(1, 1, 1, 1, 0, 0, 1, 1, 1),
       false, "gemm_conv_int8:avx2"},
  };
  unsigned seed = 900;
  for (const Case& c : cases) {
    RunCase(c.what, [&] {
      Net net(seed++);
      const Quant in{1.5f, 255.5f, true};
      const Tensor x = qv_test::Random(c.x, &net.rng, 0.f, 1.5f);
      const float out_range = 1.2f;
      int conv = net.Conv("conv", net.g.Variable("data"), c.x[1], c.filters, c.p, true, -1,
                          Hints(in, "uint8", out_range, true, 127.5f, 1));
      conv = c.clip ? net.g.Op("clip", "act", {{"a_min", "0"}, {"a_max", "0.6"}}, {conv})
                    : net.g.Op("Activation", "act", {{"act_type", "relu"}}, {conv});
      net.g.Output(conv);

      const auto [xq, x_step] = Integers(x, in);
      const auto [wq, w_steps] = WeightIntegers(net.params.at("conv_weight"), true, 127.5f);
      Tensor want = Rescale(qv_ref::Convolution(xq, wq, nullptr, c.p), x_step, w_steps, &net.params.at("conv_bias"));
      const float step = out_range / qv::Int8Hints::DataLevels(qv::DType::kUInt8);
      for (float& v : want.data) v = RoundToStep(std::clamp(v, 0.f, c.clip ? 0.6f : 1e9f), step, true) * step;

      CompiledGraph op(net.g.ToJson(), net.params, {{"precision", "int8"}});
      std::vector<Tensor> out;
      const std::string kernel = qv_test::ProfiledKernel(op, {x}, "conv", &out);
      INFO("kernel " << kernel);
      CHECK((kernel == c.kernel) == !dot_products);
      ExpectWithinOneStep(out.at(0), want, step, c.what);
    });
  }
}

TEST_CASE("an int8 residual summed into a uint8 output keeps its own type and scale", "[ops][int8]") {
  if (!CpuRunsInt8()) return;
  Net net(77);
  const ConvParams p = MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1);
  const Quant in{2.f, 127.5f, false};
  const Tensor x = qv_test::Random({1, 8, 6, 6}, &net.rng, -2.f, 2.f);
  const int data = net.g.Variable("data");
  // b: int8 output (a downsampling branch without ReLU); a + b, then ReLU, into uint8.
  const int b = net.Conv("convb", data, 8, 8, p, true, -1, Hints(in, "int8", 1.2f, true, 127.5f, 0));
  const int a = net.Conv("conva", data, 8, 8, p, true, -1, Hints(in, "uint8", 2.4f, true, 127.5f, 2));
  const int sum = net.g.Op("elemwise_add", "add0", {}, {a, b});
  net.g.Output(net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {sum}));

  const auto [xq, x_step] = Integers(x, in);
  auto conv = [&, xq = xq, x_step = x_step](const std::string& name) {
    const auto [wq, w_steps] = WeightIntegers(net.params.at(name + "_weight"), true, 127.5f);
    return Rescale(qv_ref::Convolution(xq, wq, nullptr, p), x_step, w_steps, &net.params.at(name + "_bias"));
  };
  const float b_step = 1.2f / 127.5f, out_step = 2.4f / 255.5f;
  Tensor want = conv("conva");
  const Tensor residual = conv("convb");
  for (int64_t i = 0; i < want.size(); ++i) {
    const float v = want.data[i] + RoundToStep(residual.data[i], b_step, false) * b_step;
    want.data[i] = RoundToStep(std::max(v, 0.f), out_step, true) * out_step;
  }
  // MXNet 1.9.1 writes this sum as int8 with the uint8 scale: nothing above about half of 2.4.
  float largest = 0;
  const Tensor got = RunInt8(net, x);
  for (float v : got.data) largest = std::max(largest, v);
  CHECK(largest > 1.3f);
  ExpectWithinOneStep(got, want, out_step, "residual sum");
}

TEST_CASE("int8 3-D convolutions (I3D, SlowFast) match the reference quantization within one output step",
          "[ops][int8][conv3d]") {
  if (!CpuRunsInt8()) return;
  struct Case {
    std::string what;
    Shape x;
    Conv3d c;
    Quant in;
    std::string out_type;
    bool with_residual;  // an int8 residual summed in before the ReLU
  };
  const std::vector<Case> cases = {
      {"stem, uint8 data, ReLU into uint8", {1, 3, 5, 9, 9}, {8, 1, {3, 5, 5}, {1, 2, 2}, {1, 2, 2}, {1, 1, 1}, true},
       {1.5f, 255.5f, true}, "uint8", false},
      {"temporal 3x1x1, int8 data measured per run, float32 output", {2, 16, 4, 5, 5},
       {12, 1, {3, 1, 1}, {1, 1, 1}, {1, 0, 0}, {1, 1, 1}, true}, {0, 127.5f, false}, "float32", false},
      {"grouped 3x3x3, int8 residual into uint8", {1, 8, 3, 6, 6}, {8, 2, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, true},
       {2.f, 127.5f, false}, "uint8", true},
  };
  unsigned seed = 560;
  for (const Case& c : cases) {
    RunCase(c.what, [&] {
      Net net(seed++);
      const Tensor x = qv_test::Random(c.x, &net.rng, c.in.is_unsigned ? 0.f : -2.f, 2.f);
      const bool relu = c.out_type == "uint8";
      const float out_range = 2.4f, residual_range = 1.2f;
      const int data = net.g.Variable("data");
      // A 3-D convolution named `name` on data, with int8 hints; its weight and bias are parameters.
      auto conv = [&](const std::string& name, const std::string& out_type, float range, int fused) {
        Shape ws = {c.c.filters, c.x[1] / c.c.groups};
        ws.insert(ws.end(), c.c.kernel.begin(), c.c.kernel.end());
        net.Param(name + "_weight", ws, -0.3f, 0.3f);
        net.Param(name + "_bias", {c.c.filters});
        AttrMap attrs = Conv3dAttrs(c.c);
        const AttrMap hints = Hints(c.in, out_type, range, true, 127.5f, fused);
        attrs.insert(hints.begin(), hints.end());
        return net.g.Op("Convolution", name, attrs,
                        {data, net.g.Variable(name + "_weight"), net.g.Variable(name + "_bias")});
      };
      int out = conv("conva", c.out_type, out_range, c.with_residual ? 2 : relu ? 1 : 0);
      if (c.with_residual) out = net.g.Op("elemwise_add", "add0", {}, {out, conv("convb", "int8", residual_range, 0)});
      if (relu) out = net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {out});
      net.g.Output(out);

      const auto [xq, x_step] = Integers(x, c.in);
      auto reference = [&, xq = xq, x_step = x_step](const std::string& name) {
        const auto [wq, w_steps] = WeightIntegers(net.params.at(name + "_weight"), true, 127.5f);
        return Rescale(RefConv3d(xq, wq, nullptr, c.c), x_step, w_steps, &net.params.at(name + "_bias"));
      };
      Tensor want = reference("conva");
      float step = 0;
      if (c.with_residual) {
        const Tensor residual = reference("convb");
        const float residual_step = residual_range / 127.5f;
        for (int64_t i = 0; i < want.size(); ++i)
          want.data[i] += RoundToStep(residual.data[i], residual_step, false) * residual_step;
      }
      if (relu) {
        step = out_range / 255.5f;
        for (float& v : want.data) v = RoundToStep(std::max(v, 0.f), step, true) * step;
      }
      ExpectWithinOneStep(RunInt8(net, x), want, step, c.what);
    });
  }
}

TEST_CASE("an int8 inner product with one weight scale and a float32 output matches the reference", "[ops][int8]") {
  if (!CpuRunsInt8()) return;
  Net net(91);
  const Quant in{3.f, 255.5f, true};
  const Tensor x = qv_test::Random({3, 40}, &net.rng, 0.f, 3.f);
  net.Param("fc0_weight", {10, 40}, -0.3f, 0.3f);
  net.Param("fc0_bias", {10});
  AttrMap attrs = {{"num_hidden", "10"}};
  attrs.merge(Hints(in, "float32", 0, false, 127.f, 0));
  net.g.Output(net.g.Op("FullyConnected", "fc0", attrs,
                        {net.g.Variable("data"), net.g.Variable("fc0_weight"), net.g.Variable("fc0_bias")}));
  const auto [xq, x_step] = Integers(x, in);
  const auto [wq, w_steps] = WeightIntegers(net.params.at("fc0_weight"), false, 127.f);
  const Tensor want = Rescale(qv_ref::FullyConnected(xq, wq, nullptr, true), x_step, w_steps, &net.params.at("fc0_bias"));
  ExpectWithinOneStep(RunInt8(net, x), want, 0, "inner product");
}

// After global pooling an int8 classifier reads a channels-last 1x1 image, a layout oneDNN's GEMM inner
// product (its only int8 one without VNNI) cannot pair with its weights; the kernel then lets oneDNN pick
// the data's layout (fully_connected_kernel.cc). Whatever it picks, the classifier must compute what it
// computes on the same integers given as a plain input.
TEST_CASE("an int8 inner product over a channels-last 1x1 image reads it as a plain input", "[ops][int8]") {
  if (!CpuRunsInt8()) return;
  Net net(93);
  const Quant in{2.f, 127.5f, false};
  const float range = 1.7f;  // the uint8 output of the convolution, and the inner product's input range
  const Quant pooled{range, qv::Int8Hints::DataLevels(qv::DType::kUInt8), true};
  const Tensor x = qv_test::Random({2, 16, 1, 1}, &net.rng, -2.f, 2.f);
  int conv = net.Conv("conv0", net.g.Variable("data"), 16, 24, MakeConv(1, 1, 1, 1, 0, 0, 1, 1, 1), true, -1,
                      Hints(in, "uint8", range, true, 127.5f, 1));
  conv = net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {conv});
  net.Param("fc0_weight", {10, 24}, -0.3f, 0.3f);
  net.Param("fc0_bias", {10});
  AttrMap fc_attrs = {{"num_hidden", "10"}};
  fc_attrs.merge(Hints(pooled, "float32", 0, true, 127.f, 0));
  const auto fc = [&](Net& into, int input) {
    into.g.Output(into.g.Op("FullyConnected", "fc0", fc_attrs,
                            {input, into.g.Variable("fc0_weight"), into.g.Variable("fc0_bias")}));
  };
  Net features = net;  // the convolution alone: its uint8 output, as values on its steps
  features.g.Output(conv);
  fc(net, conv);
  Net classifier(0);  // the inner product alone, on those values as a plain input
  classifier.params = {{"fc0_weight", net.params.at("fc0_weight")}, {"fc0_bias", net.params.at("fc0_bias")}};
  fc(classifier, classifier.g.Variable("data"));

  const Tensor pooled_values = RunInt8(features, x);
  ExpectWithinOneStep(RunInt8(net, x), RunInt8(classifier, pooled_values), 0, "classifier after the convolution");
}

// Without int8 dot products oneDNN adds each two neighbouring u8 x s8 products in 16 bits with
// saturation (vpmaddubsw): data at the top of its range times same-signed weights near their largest
// (8-bit integers 64 to 127) would sum to up to 64770 and be cut to 32767. Every product here is of
// that kind, in convolutions on uint8 and on int8 data (which oneDNN shifts into uint8) and in inner
// products; the sums must stay exact.
TEST_CASE("int8 products whose 16-bit pair sums could saturate stay exact", "[ops][int8]") {
  if (!CpuRunsInt8()) return;
  struct Case {
    std::string what;
    bool fc;
    Quant in;
    float value;  // every input element: the top of the range (uint8 255, int8 127 shifted to 255)
  };
  const std::vector<Case> cases = {{"convolution on uint8 data", false, {2.f, 255.5f, true}, 2.f},
                                   {"convolution on int8 data", false, {2.f, 127.5f, false}, 2.f},
                                   {"inner product on uint8 data", true, {2.f, 255.5f, true}, 2.f},
                                   {"inner product on int8 data", true, {2.f, 127.5f, false}, 2.f}};
  unsigned seed = 1200;
  for (const Case& c : cases) {
    RunCase(c.what, [&] {
      Net net(seed++);
      const Shape x_shape = c.fc ? Shape{2, 64} : Shape{1, 32, 5, 5};
      const Tensor x{x_shape, std::vector<float>(c.fc ? 2 * 64 : 32 * 5 * 5, c.value)};
      const ConvParams p = MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1);
      const int data = net.g.Variable("data");
      const std::string name = c.fc ? "fc0" : "conv0";
      if (c.fc) {
        net.Param("fc0_weight", {16, 64});
        net.Param("fc0_bias", {16});
        AttrMap attrs = {{"num_hidden", "16"}};
        attrs.merge(Hints(c.in, "float32", 0, false, 127.f, 0));
        net.g.Output(net.g.Op("FullyConnected", "fc0", attrs, {data, net.g.Variable("fc0_weight"), net.g.Variable("fc0_bias")}));
      } else {
        net.g.Output(net.Conv("conv0", data, 32, 16, p, true, -1, Hints(c.in, "float32", 0, true, 127.5f, 0)));
      }
      // Each output channel's weights share a sign and lie in [0.5, 1] of its largest.
      Tensor& w = net.params.at(name + "_weight");
      const int64_t per = w.size() / w.shape[0];
      for (int64_t i = 0; i < w.size(); ++i) w.data[i] = ((i / per) % 2 ? -1.f : 1.f) * (0.5f + 0.5f * std::fabs(w.data[i]));

      const auto [xq, x_step] = Integers(x, c.in);
      const auto [wq, w_steps] = WeightIntegers(w, !c.fc, c.fc ? 127.f : 127.5f);
      const Tensor acc = c.fc ? qv_ref::FullyConnected(xq, wq, nullptr, true) : qv_ref::Convolution(xq, wq, nullptr, p);
      ExpectWithinOneStep(RunInt8(net, x), Rescale(acc, x_step, w_steps, &net.params.at(name + "_bias")), 0, c.what);
    });
  }
}

// Run alone by CTest (cpu.int8_without_avx2) with ONEDNN_MAX_CPU_ISA=AVX, which hides AVX2 from oneDNN
// as a CPU without it (before Haswell) would.
TEST_CASE("with AVX2 hidden, int8 is refused naming it", "[.no_avx2]") {
  const char* isa = std::getenv("ONEDNN_MAX_CPU_ISA");
  if (isa == nullptr || std::string(isa) != "AVX") FAIL("run with ONEDNN_MAX_CPU_ISA=AVX (ctest -R cpu.int8_without_avx2 does)");
  CHECK_THROWS_WITH(CompileTinyInt8Model(),
                    Catch::Contains("precision 'int8' needs AVX2") && Catch::Contains("ONEDNN_MAX_CPU_ISA"));
}

// Concat of int8 convolution outputs (the convolutions are checked against the reference above; here
// their outputs are read back and are the reference's inputs), as MXNet's quantized concat computes
// it: int8 if any input is int8, else uint8, over the widest input range with that type's levels, each
// input moved onto that grid (rounded to nearest, saturated). The kernel computes the same with float32
// scales: exact, except where a value lies within float32 rounding of a half step (one step off). A
// float32 input makes the whole concat float32, and each input keeps its values.
namespace {

struct ConcatInput {
  int64_t filters;
  std::string type;  // int8, uint8 (after a ReLU), or float32 (a float convolution: no hints)
  float range;
};

struct Int8ConcatCase {
  std::string what;
  int dim;
  std::vector<ConcatInput> inputs;
  std::string out_type;  // what MXNet's quantized concat writes
};

const std::vector<Int8ConcatCase> kConcatCases = {
    {"int8 and uint8 inputs into int8, on channels", 1, {{8, "int8", 1.2f}, {4, "uint8", 2.4f}, {6, "uint8", 0.9f}}, "int8"},
    {"uint8 inputs into uint8, on channels", 1, {{4, "uint8", 0.9f}, {8, "uint8", 2.4f}}, "uint8"},
    {"int8 inputs into int8, on the last axis", -1, {{8, "int8", 0.6f}, {8, "int8", 1.5f}}, "int8"},
    {"an int8 and a float32 input into float32", 1, {{8, "int8", 1.2f}, {4, "float32", 0}}, "float32"},
};

}  // namespace

TEST_CASE("int8 concat puts its inputs on the widest input range, as MXNet does", "[ops][int8]") {
  if (!CpuRunsInt8()) return;
  unsigned seed = 900;
  for (const Int8ConcatCase& c : kConcatCases) {
    RunCase(c.what, [&] {
      Net net(seed++);
      const ConvParams p = MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1);
      const Quant in{2.f, 127.5f, false};
      const int data = net.g.Variable("data");
      std::vector<qv_test::Entry> parts;
      float range = 0;
      for (size_t i = 0; i < c.inputs.size(); ++i) {
        const ConcatInput& ci = c.inputs[i];
        const bool relu = ci.type == "uint8";
        const AttrMap hints = ci.type == "float32" ? AttrMap{} : Hints(in, ci.type, ci.range, true, 127.5f, relu ? 1 : 0);
        int node = net.Conv("conv" + std::to_string(i), data, 8, ci.filters, p, true, -1, hints);
        if (relu) node = net.g.Op("Activation", "relu" + std::to_string(i), {{"act_type", "relu"}}, {node});
        parts.push_back(node);
        range = std::max(range, ci.range);
      }
      net.g.Output(net.g.Op("Concat", "concat0",
                            {{"dim", std::to_string(c.dim)}, {"num_args", std::to_string(parts.size())}}, parts));
      for (const qv_test::Entry& part : parts) net.g.Output(part);

      const Tensor x = qv_test::Random({1, 8, 6, 5}, &net.rng, -2.f, 2.f);
      CompiledGraph op(net.g.ToJson(), net.params, {{"precision", "int8"}});
      std::vector<Tensor> outputs = op.Run({x});
      std::vector<Tensor> inputs(outputs.begin() + 1, outputs.end());
      float step = 0;
      if (c.out_type != "float32") {
        const bool is_unsigned = c.out_type == "uint8";
        step = range / qv::Int8Hints::DataLevels(is_unsigned ? qv::DType::kUInt8 : qv::DType::kInt8);
        for (Tensor& t : inputs)
          for (float& v : t.data) v = RoundToStep(v, step, is_unsigned) * step;
      }
      ExpectWithinOneStep(outputs[0], qv_ref::Concat(inputs, c.dim), step, c.what);
    });
  }
}
