// 3-D Convolution (NCDHW, as the I3D and SlowFast video networks use it) against a direct
// double-precision reference: strides, padding, dilation, groups, bias, and a first layer of 3 channels.
#include "engine/ops/convolution_3d_reference.h"

using namespace qv_op_test;

TEST_CASE("3-D Convolution matches the reference", "[ops][convolution][conv3d]") {
  struct Case {
    Shape x;
    Conv3d c;
  };
  const std::vector<Case> cases = {
      {{1, 3, 5, 9, 9}, {8, 1, {5, 7, 7}, {2, 2, 2}, {2, 3, 3}, {1, 1, 1}, false}},   // I3D's stem, 3 channels
      {{2, 16, 4, 6, 5}, {16, 1, {3, 1, 1}, {1, 1, 1}, {1, 0, 0}, {1, 1, 1}, true}},  // temporal 3x1x1
      {{1, 8, 3, 7, 6}, {12, 1, {1, 3, 3}, {1, 2, 2}, {0, 1, 1}, {1, 1, 1}, true}},   // spatial 1x3x3, stride 2
      {{2, 6, 5, 5, 5}, {6, 3, {3, 3, 3}, {1, 1, 1}, {2, 1, 2}, {2, 1, 2}, false}},   // grouped, dilated
      {{1, 4, 4, 5, 6}, {4, 4, {3, 3, 3}, {2, 1, 2}, {1, 1, 1}, {1, 1, 1}, true}},    // depthwise
      {{1, 17, 3, 4, 4}, {33, 1, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, false}}, // 1x1x1, odd channels
  };
  unsigned seed = 720;
  for (const Case& c : cases) {
    const std::string what = "Convolution x=" + ShapeStr(c.x) + " kernel=" + TupleOf(c.c.kernel) + " stride=" +
                             TupleOf(c.c.stride) + " pad=" + TupleOf(c.c.pad) + " dilate=" + TupleOf(c.c.dilate) +
                             " groups=" + std::to_string(c.c.groups);
    RunCase(what, [&] {
      const Tensor x = RandomTensor(c.x, seed++);
      Shape ws = {c.c.filters, c.x[1] / c.c.groups};
      ws.insert(ws.end(), c.c.kernel.begin(), c.c.kernel.end());
      const Tensor w = RandomTensor(ws, seed++, -0.5f, 0.5f), b = RandomTensor({c.c.filters}, seed++);
      GraphBuilder g;
      std::vector<qv_test::Entry> inputs = {g.Variable("data"), g.Variable("conv_weight")};
      std::map<std::string, Tensor> params = {{"conv_weight", w}};
      if (c.c.bias) {
        inputs.push_back(g.Variable("conv_bias"));
        params["conv_bias"] = b;
      }
      g.Output(g.Op("Convolution", "conv", Conv3dAttrs(c.c), inputs));
      ExpectClose(Run(g, {x}, params).at(0), RefConv3d(x, w, c.c.bias ? &b : nullptr, c.c), what);
    });
  }
}

TEST_CASE("3-D Convolution refuses mismatched tuples, weights and data", "[ops][convolution][conv3d]") {
  const Tensor x = RandomTensor({1, 2, 3, 4, 4}, 730);
  const Tensor w = RandomTensor({4, 2, 3, 3, 3}, 731);
  auto run = [&](const AttrMap& attrs, const Tensor& data, const Tensor& weight) {
    GraphBuilder g;
    g.Output(g.Op("Convolution", "conv", attrs, {g.Variable("data"), g.Variable("conv_weight")}));
    Run(g, {data}, {{"conv_weight", weight}});
  };
  const AttrMap ok = {{"num_filter", "4"}, {"kernel", "(3, 3, 3)"}, {"no_bias", "True"}};
  AttrMap two_strides = ok;
  two_strides["stride"] = "(1, 1)";
  ExpectMessage(FailureOf([&] { run(two_strides, x, w); }), "conv", {"3 values"});
  ExpectMessage(FailureOf([&] { run(ok, x, RandomTensor({4, 2, 3, 3}, 732)); }), "conv", {"weight"});
  ExpectMessage(FailureOf([&] { run(ok, RandomTensor({1, 2, 4, 4}, 733), w); }), "conv", {"data"});
  AttrMap four = ok;
  four["kernel"] = "(1, 1, 1, 1)";
  ExpectMessage(FailureOf([&] { run(four, x, w); }), "conv", {"2-D and 3-D"});
}
