// The Winograd 3x3 convolution (backends/cpu/kernels/winograd_convolution.h): which convolutions take it
// (the profiler's "kernel" of the step), and that they compute what the plain loops of
// support/reference_ops.h compute, with bias and fused post-ops, on maps whose sides are not multiples
// of the tile, in one block and in many (the last one short), and from several threads at once.
#include <algorithm>
#include <cstring>
#include <exception>
#include <thread>

#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

enum class After { kNothing, kRelu, kResidualRelu, kLeaky, kClip };

struct Case {
  std::string what;
  Shape x;
  int64_t filters;
  ConvParams conv;
  bool bias;
  After after;
};

ConvParams Conv3x3(int64_t pad, int64_t stride = 1, int64_t dilate = 1) {
  return MakeConv(3, 3, stride, stride, pad, pad, dilate, dilate, 1);
}

// data -> conv "conv" -> the case's epilogue -> output.
Net Build(const Case& c, unsigned seed) {
  Net net(seed);
  const int data = net.g.Variable("data");
  int out = net.Conv("conv", data, c.x[1], c.filters, c.conv, c.bias);
  switch (c.after) {
    case After::kNothing: break;
    case After::kRelu: out = net.g.Op("Activation", "act", {{"act_type", "relu"}}, {out}); break;
    case After::kResidualRelu:
      out = net.g.Op("Activation", "act", {{"act_type", "relu"}}, {net.g.Op("elemwise_add", "add", {}, {out, data})});
      break;
    case After::kLeaky: out = net.g.Op("LeakyReLU", "act", {{"act_type", "leaky"}, {"slope", "0.1"}}, {out}); break;
    case After::kClip: out = net.g.Op("clip", "act", {{"a_min", "0"}, {"a_max", "0.5"}}, {out}); break;
  }
  net.g.Output(out);
  return net;
}

Tensor Reference(const Net& net, const Case& c, const Tensor& x) {
  Tensor y = net.RefConv("conv", x, c.conv, c.bias);
  if (c.after == After::kResidualRelu) y = qv_ref::BroadcastAdd(y, x);
  for (float& v : y.data) {
    if (c.after == After::kRelu || c.after == After::kResidualRelu) v = std::max(v, 0.f);
    if (c.after == After::kLeaky) v = v > 0 ? v : 0.1f * v;
    if (c.after == After::kClip) v = std::min(std::max(v, 0.f), 0.5f);
  }
  return y;
}

// The "kernel" the profiler names for node "conv" while `net` runs on `x`, and the outputs.
std::string ConvKernel(const CompiledGraph& op, const Tensor& x, std::vector<Tensor>* out) {
  return qv_test::ProfiledKernel(op, {x}, "conv", out);
}

bool IsWinograd(const std::string& kernel) { return kernel.rfind("winograd F(2x2, 3x3) + ", 0) == 0; }

}  // namespace

TEST_CASE("3x3 convolutions with outputs of 14x14 and more run as Winograd and match the reference",
          "[cpu][convolution][winograd]") {
  const std::vector<Case> cases = {
      {"14x14, 16 -> 16 channels, bias, ReLU", {1, 16, 14, 14}, 16, Conv3x3(1), true, After::kRelu},
      {"batch 2 of 10x11 (half tiles), residual sum and ReLU", {2, 32, 10, 11}, 32, Conv3x3(1), true,
       After::kResidualRelu},
      {"56x56: many blocks, the last one short; leaky ReLU, no bias", {1, 16, 56, 56}, 32, Conv3x3(1), false,
       After::kLeaky},
      {"unpadded 18x18, clip", {1, 16, 18, 18}, 48, Conv3x3(0), true, After::kClip},
      {"padding 2", {1, 32, 13, 15}, 16, Conv3x3(2), true, After::kNothing},
  };
  for (const Case& c : cases) {
    RunCase(c.what, [&] {
      Net net = Build(c, 4100 + static_cast<unsigned>(c.x[2]));
      const Tensor x = RandomTensor(c.x, 4200 + static_cast<unsigned>(c.x[3]));
      CompiledGraph op(net.g.ToJson(), net.params);
      std::vector<Tensor> out;
      const std::string kernel = ConvKernel(op, x, &out);
      INFO(c.what << ": kernel '" << kernel << "'");
      CHECK(IsWinograd(kernel));
      REQUIRE(out.size() == 1);
      ExpectClose(out[0], Reference(net, c, x), c.what);
    });
  }
}

TEST_CASE("other convolutions stay direct", "[cpu][convolution][winograd]") {
  const std::vector<Case> cases = {
      {"a 7x7 map (49 outputs: the larger filters would cost more)", {1, 32, 7, 7}, 32, Conv3x3(1), true,
       After::kRelu},
      {"stride 2", {1, 16, 30, 30}, 16, Conv3x3(1, 2), true, After::kNothing},
      {"dilation 2", {1, 16, 20, 20}, 16, Conv3x3(2, 1, 2), true, After::kNothing},
      {"8 input channels", {1, 8, 16, 16}, 16, Conv3x3(1), true, After::kNothing},
      {"24 filters", {1, 16, 16, 16}, 24, Conv3x3(1), true, After::kNothing},
      {"a 5x5 kernel", {1, 16, 16, 16}, 16, MakeConv(5, 5, 1, 1, 2, 2, 1, 1, 1), true, After::kNothing},
  };
  for (const Case& c : cases) {
    RunCase(c.what, [&] {
      Net net = Build(c, 4300);
      const Tensor x = RandomTensor(c.x, 4400);
      CompiledGraph op(net.g.ToJson(), net.params);
      std::vector<Tensor> out;
      const std::string kernel = ConvKernel(op, x, &out);
      INFO(c.what << ": kernel '" << kernel << "'");
      CHECK_FALSE(kernel.empty());  // oneDNN's implementation
      CHECK_FALSE(IsWinograd(kernel));
      REQUIRE(out.size() == 1);
      ExpectClose(out[0], Reference(net, c, x), c.what);
    });
  }
}

TEST_CASE("Winograd convolutions run from several threads at once give the sequential results bit for bit",
          "[cpu][convolution][winograd][concurrency]") {
  // One case of each way of running: many blocks (one thread each), and one block shared by all.
  const std::vector<Case> cases = {
      {"56x56 in blocks", {1, 32, 56, 56}, 32, Conv3x3(1), true, After::kResidualRelu},
      {"14x14 in one block", {1, 64, 14, 14}, 64, Conv3x3(1), true, After::kRelu},
  };
  for (const Case& c : cases) {
    RunCase(c.what, [&] {
      Net net = Build(c, 4500);
      CompiledGraph op(net.g.ToJson(), net.params);
      constexpr int kThreads = 4, kRuns = 8;
      std::vector<Tensor> inputs, expected;
      for (int i = 0; i < kThreads; ++i) {
        inputs.push_back(RandomTensor(c.x, 4600 + i));
        expected.push_back(op.Run({inputs.back()}).at(0));
      }
      std::vector<int> mismatches(kThreads, 0);
      std::vector<std::thread> threads;
      for (int i = 0; i < kThreads; ++i) {
        threads.emplace_back([&, i] {
          for (int r = 0; r < kRuns; ++r) {
            try {
              const Tensor got = op.Run({inputs[i]}).at(0);
              if (got.data.size() != expected[i].data.size() ||
                  std::memcmp(got.data.data(), expected[i].data.data(), got.data.size() * sizeof(float)) != 0)
                ++mismatches[i];
            } catch (const std::exception&) {
              ++mismatches[i];  // a failed run counts as a wrong one
            }
          }
        });
      }
      for (auto& t : threads) t.join();
      for (int i = 0; i < kThreads; ++i) {
        INFO(c.what << ", thread " << i);
        CHECK(mismatches[i] == 0);
      }
    });
  }
}
