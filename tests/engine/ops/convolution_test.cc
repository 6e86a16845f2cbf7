// Convolution against the reference: strides, padding, dilation, groups (depthwise, multipliers), odd
// shapes and channel counts around oneDNN's blocked layouts.
#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

TEST_CASE("Convolution matches the reference", "[ops][convolution]") {
  struct Case {
    Shape x;
    int64_t filters;
    ConvParams p;
    bool bias;
  };
  const std::vector<Case> cases = {
      {{1, 3, 7, 9}, 8, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1), true},
      {{3, 5, 7, 9}, 13, MakeConv(3, 3, 2, 2, 1, 1, 1, 1, 1), false},
      {{3, 13, 11, 8}, 5, MakeConv(1, 1, 1, 1, 0, 0, 1, 1, 1), true},
      {{1, 3, 9, 9}, 16, MakeConv(5, 5, 2, 2, 2, 2, 1, 1, 1), true},
      {{1, 3, 15, 13}, 16, MakeConv(7, 7, 2, 2, 3, 3, 1, 1, 1), false},  // ResNet stem, odd size
      {{3, 16, 5, 5}, 32, MakeConv(3, 3, 1, 1, 0, 0, 1, 1, 1), true},
      {{1, 16, 9, 7}, 16, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 16), true},   // depthwise
      {{3, 13, 7, 9}, 13, MakeConv(3, 3, 2, 2, 1, 1, 1, 1, 13), false},  // depthwise, stride 2
      {{1, 4, 7, 9}, 8, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 4), true},      // depthwise, multiplier 2
      {{1, 8, 9, 9}, 4, MakeConv(3, 3, 1, 1, 2, 2, 2, 2, 2), true},      // grouped + dilated
      {{3, 5, 11, 9}, 5, MakeConv(3, 3, 1, 1, 3, 3, 3, 3, 1), false},    // dilation 3
      {{1, 6, 10, 7}, 6, MakeConv(3, 1, 2, 1, 1, 0, 1, 1, 3), false},    // 3x1 kernel, anisotropic stride
      {{3, 3, 7, 9}, 5, MakeConv(2, 4, 1, 3, 0, 2, 1, 1, 1), true},      // even, rectangular kernel
      {{1, 3, 1, 1}, 13, MakeConv(1, 1, 1, 1, 0, 0, 1, 1, 1), true},     // 1x1 image
      // Channel counts around oneDNN's blocked layouts (8 / 16 lanes), not multiples of them.
      {{3, 17, 9, 7}, 33, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1), true},
      {{1, 24, 7, 9}, 13, MakeConv(3, 3, 2, 2, 1, 1, 1, 1, 1), false},
      {{3, 64, 7, 7}, 64, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1), true},
      {{1, 40, 9, 9}, 40, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 40), true},    // wide depthwise
      {{3, 32, 5, 7}, 48, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 4), false},    // 4 groups of 8 -> 12
  };
  unsigned seed = 100;
  for (const Case& c : cases) {
    const std::string what = "Convolution x=" + ShapeStr(c.x) + " filters=" + std::to_string(c.filters) + " " +
                             Describe(c.p) + (c.bias ? " bias" : " no_bias");
    RunCase(what, [&] {
      Net net(seed++);
      const int data = net.g.Variable("data");
      net.g.Output(net.Conv("conv0", data, c.x[1], c.filters, c.p, c.bias));
      const Tensor x = qv_test::Random(c.x, &net.rng);
      const std::vector<Tensor> out = RunSingleInput(net, x);
      REQUIRE(out.size() == 1);
      ExpectClose(out[0], net.RefConv("conv0", x, c.p, c.bias), what);
    });
  }
}
