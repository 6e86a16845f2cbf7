// The graph rewrites the runtime applies (BatchNorm folded into a convolution, fused activations and
// residual adds, identity removal) checked numerically: the rewritten graph must give the unfused
// answer of the plain loops in support/reference_ops.h, including where a rewrite must be skipped.
#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

TEST_CASE("Convolution -> BatchNorm (folded) and -> relu match the unfused reference", "[graph][fusion]") {
  struct Case {
    Shape x;
    int64_t filters;
    ConvParams p;
    bool conv_bias;
    bool fix_gamma;
    bool relu;
  };
  const std::vector<Case> cases = {
      {{1, 3, 7, 9}, 8, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1), false, false, false},
      {{3, 5, 7, 9}, 13, MakeConv(3, 3, 2, 2, 1, 1, 1, 1, 1), true, false, false},
      {{1, 3, 9, 7}, 16, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1), false, true, false},  // fix_gamma: gamma ignored
      {{3, 13, 7, 9}, 13, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 13), false, false, false},  // depthwise
      {{1, 3, 7, 9}, 8, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1), false, false, true},
      {{3, 5, 7, 9}, 13, MakeConv(1, 1, 1, 1, 0, 0, 1, 1, 1), true, true, true},
      {{1, 16, 9, 7}, 16, MakeConv(3, 3, 2, 2, 1, 1, 1, 1, 16), false, false, true},  // depthwise + relu
      {{3, 5, 11, 9}, 5, MakeConv(3, 3, 1, 1, 2, 2, 2, 2, 1), true, false, true},     // dilated
  };
  unsigned seed = 1200;
  for (const Case& c : cases) {
    const std::string what = "Convolution -> BatchNorm" + std::string(c.relu ? " -> relu" : "") + " x=" +
                             ShapeStr(c.x) + " filters=" + std::to_string(c.filters) + " " + Describe(c.p) +
                             (c.conv_bias ? " bias" : "") + (c.fix_gamma ? " fix_gamma" : " learned gamma");
    RunCase(what, [&] {
      Net net(seed++);
      const int data = net.g.Variable("data");
      const int conv = net.Conv("conv0", data, c.x[1], c.filters, c.p, c.conv_bias);
      const AttrMap bn_attrs = {{"eps", "1e-05"}, {"fix_gamma", c.fix_gamma ? "True" : "False"}};
      int head = net.BatchNorm("bn0", conv, c.filters, bn_attrs);
      if (c.relu) head = net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {head});
      net.g.Output(head);
      const Tensor x = qv_test::Random(c.x, &net.rng);
      Tensor want = net.RefBatchNorm("bn0", net.RefConv("conv0", x, c.p, c.conv_bias), 1e-5f, c.fix_gamma);
      if (c.relu) want = qv_ref::Activation(want, "relu");
      const std::vector<Tensor> out = RunSingleInput(net, x);
      REQUIRE(out.size() == 1);
      ExpectClose(out[0], want, what);
    });
  }
}

TEST_CASE("Convolution -> elemwise_add (residual) -> relu, both operand orders", "[graph][fusion]") {
  const std::vector<Shape> shapes = {{1, 5, 7, 9}, {3, 13, 8, 8}, {1, 16, 9, 7}};
  unsigned seed = 1300;
  for (const Shape& shape : shapes) {
    for (int conv_first = 0; conv_first < 2; ++conv_first) {
      for (int with_bn = 0; with_bn < 2; ++with_bn) {
        for (const std::string add_op : {"elemwise_add", "broadcast_add"}) {
          const std::string what = "residual x=" + ShapeStr(shape) + (with_bn ? " conv->bn" : " conv") +
                                   (conv_first ? " + shortcut" : " shortcut +") + " via " + add_op + " -> relu";
          RunCase(what, [&] {
            Net net(seed++);
            const ConvParams p = MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1);
            const int data = net.g.Variable("data");
            int branch = net.Conv("conv0", data, shape[1], shape[1], p, true);
            if (with_bn) branch = net.BatchNorm("bn0", branch, shape[1], {{"fix_gamma", "False"}});
            const int add = conv_first ? net.g.Op(add_op, "add0", {}, {branch, data})
                                       : net.g.Op(add_op, "add0", {}, {data, branch});
            net.g.Output(net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {add}));
            const Tensor x = qv_test::Random(shape, &net.rng);
            Tensor b = net.RefConv("conv0", x, p, true);
            if (with_bn) b = net.RefBatchNorm("bn0", b, 1e-3f, false);
            const Tensor want = qv_ref::Activation(conv_first ? qv_ref::BroadcastAdd(b, x) : qv_ref::BroadcastAdd(x, b),
                                                   "relu");
            const std::vector<Tensor> out = RunSingleInput(net, x);
            REQUIRE(out.size() == 1);
            ExpectClose(out[0], want, what);
          });
        }
      }
    }
  }

  // Two convolution branches (a ResNet projection block): conv1 -> bn1, conv2 -> bn2, add, relu.
  for (int order = 0; order < 2; ++order) {
    const std::string what = std::string("projection block, add order ") + (order ? "(proj, main)" : "(main, proj)");
    RunCase(what, [&] {
      Net net(1350 + order);
      const Shape shape = {3, 5, 9, 7};
      const ConvParams main_p = MakeConv(3, 3, 2, 2, 1, 1, 1, 1, 1), proj_p = MakeConv(1, 1, 2, 2, 0, 0, 1, 1, 1);
      const int data = net.g.Variable("data");
      const int main = net.BatchNorm("bn1", net.Conv("conv1", data, 5, 13, main_p, false), 13, {{"fix_gamma", "False"}});
      const int proj = net.BatchNorm("bn2", net.Conv("conv2", data, 5, 13, proj_p, false), 13, {{"fix_gamma", "False"}});
      const int add = order ? net.g.Op("elemwise_add", "add0", {}, {proj, main})
                            : net.g.Op("elemwise_add", "add0", {}, {main, proj});
      net.g.Output(net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {add}));
      const Tensor x = qv_test::Random(shape, &net.rng);
      const Tensor m = net.RefBatchNorm("bn1", net.RefConv("conv1", x, main_p, false), 1e-3f, false);
      const Tensor q = net.RefBatchNorm("bn2", net.RefConv("conv2", x, proj_p, false), 1e-3f, false);
      const Tensor want = qv_ref::Activation(qv_ref::BroadcastAdd(m, q), "relu");
      const std::vector<Tensor> out = RunSingleInput(net, x);
      REQUIRE(out.size() == 1);
      ExpectClose(out[0], want, what);
    });
  }
}

TEST_CASE("BatchNorm -> relu (pre-activation, ResNet v2) matches the reference", "[graph][fusion]") {
  const std::vector<Shape> shapes = {{1, 3, 7, 9}, {3, 13, 5, 5}, {3, 16, 4, 4}};
  unsigned seed = 1400;
  for (const Shape& shape : shapes) {
    for (int fix_gamma = 0; fix_gamma < 2; ++fix_gamma) {
      const std::string what = "BatchNorm -> relu -> Convolution x=" + ShapeStr(shape) + (fix_gamma ? " fix_gamma" : "");
      RunCase(what, [&] {
        Net net(seed++);
        const ConvParams p = MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1);
        const int data = net.g.Variable("data");
        const int bn = net.BatchNorm("bn0", data, shape[1], {{"fix_gamma", fix_gamma ? "True" : "False"}, {"eps", "2e-05"}});
        const int relu = net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {bn});
        const int conv = net.Conv("conv0", relu, shape[1], 8, p, false);
        // Both the activation and the convolution are outputs: the pre-activation is reused by the
        // shortcut in ResNet v2, so it must stay observable.
        net.g.Output(relu);
        net.g.Output(conv);
        const Tensor x = qv_test::Random(shape, &net.rng, -2.0f, 2.0f);
        const Tensor act = qv_ref::Activation(net.RefBatchNorm("bn0", x, 2e-5f, fix_gamma), "relu");
        const std::vector<Tensor> out = RunSingleInput(net, x);
        REQUIRE(out.size() == 2);
        ExpectClose(out[0], act, what + " [relu output]");
        ExpectClose(out[1], net.RefConv("conv0", act, p, false), what + " [conv output]");
      });
    }
  }
}

TEST_CASE("a Convolution that is a graph output and also feeds an add keeps both values", "[graph][fusion]") {
  for (int with_bn = 0; with_bn < 2; ++with_bn) {
    const std::string what = std::string("conv") + (with_bn ? "->bn" : "") + " as output and add operand";
    RunCase(what, [&] {
      Net net(1500 + with_bn);
      const Shape shape = {3, 5, 7, 9};
      const ConvParams p = MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1);
      const int data = net.g.Variable("data");
      const int conv = net.Conv("conv0", data, 5, 5, p, true);
      const int mid = with_bn ? net.BatchNorm("bn0", conv, 5, {{"fix_gamma", "False"}}) : conv;
      const int add = net.g.Op("elemwise_add", "add0", {}, {mid, data});
      const int relu = net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {add});
      net.g.Output(conv);
      net.g.Output(relu);
      if (with_bn) net.g.Output(mid);
      const Tensor x = qv_test::Random(shape, &net.rng);
      const Tensor c = net.RefConv("conv0", x, p, true);
      const Tensor m = with_bn ? net.RefBatchNorm("bn0", c, 1e-3f, false) : c;
      const std::vector<Tensor> out = RunSingleInput(net, x);
      REQUIRE(out.size() == (with_bn ? 3u : 2u));
      ExpectClose(out[0], c, what + " [conv output]");
      ExpectClose(out[1], qv_ref::Activation(qv_ref::BroadcastAdd(m, x), "relu"), what + " [relu output]");
      if (with_bn) ExpectClose(out[2], m, what + " [bn output]");
    });
  }
}

TEST_CASE("two Convolutions sharing one weight variable", "[graph][fusion]") {
  for (int bn_after_first = 0; bn_after_first < 2; ++bn_after_first) {
    const std::string what = std::string("shared weight") + (bn_after_first ? ", first conv followed by BatchNorm" : "");
    RunCase(what, [&] {
      Net net(1600 + bn_after_first);
      const Shape shape = {3, 5, 7, 9};
      const ConvParams p = MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1);
      net.Param("shared_weight", {5, 5, 3, 3}, -0.3f, 0.3f);
      const int data = net.g.Variable("data");
      const int w = net.g.Variable("shared_weight");
      int first = net.Conv("conv0", data, 5, 5, p, false, w);
      // Folding this BatchNorm into conv0's weights must not change what conv1 sees.
      if (bn_after_first) first = net.BatchNorm("bn0", first, 5, {{"fix_gamma", "False"}});
      const int relu = net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {first});
      const int second = net.Conv("conv1", relu, 5, 5, p, false, w);
      net.g.Output(first);
      net.g.Output(second);
      const Tensor x = qv_test::Random(shape, &net.rng);
      Tensor a = net.RefConv("conv0", x, p, false, "shared_weight");
      if (bn_after_first) a = net.RefBatchNorm("bn0", a, 1e-3f, false);
      const Tensor b = net.RefConv("conv1", qv_ref::Activation(a, "relu"), p, false, "shared_weight");
      const std::vector<Tensor> out = RunSingleInput(net, x);
      REQUIRE(out.size() == 2);
      ExpectClose(out[0], a, what + " [first]");
      ExpectClose(out[1], b, what + " [second]");
    });
  }
}

TEST_CASE("Dropout, identity and _copy in the middle and at the end of a graph", "[graph][fusion]") {
  RunCase("pass-through ops around conv/bn/relu", [&] {
    Net net(1800);
    const Shape shape = {3, 5, 7, 9};
    const ConvParams p = MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1);
    const int data = net.g.Variable("data");
    const int conv = net.Conv("conv0", data, 5, 8, p, false);
    const int drop = net.g.Op("Dropout", "drop0", {{"p", "0.5"}}, {conv});
    const int bn = net.BatchNorm("bn0", drop, 8, {{"fix_gamma", "False"}});
    const int copy = net.g.Op("_copy", "copy0", {}, {bn});
    const int relu = net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {copy});
    const int ident = net.g.Op("identity", "ident0", {}, {relu});
    net.g.Output(net.g.Op("Dropout", "drop1", {{"p", "0.2"}}, {ident}));
    const Tensor x = qv_test::Random(shape, &net.rng);
    const Tensor want =
        qv_ref::Activation(net.RefBatchNorm("bn0", net.RefConv("conv0", x, p, false), 1e-3f, false), "relu");
    const std::vector<Tensor> out = RunSingleInput(net, x);
    REQUIRE(out.size() == 1);
    ExpectClose(out[0], want, "pass-through ops");
  });
  RunCase("identity between a conv and its residual add, and two outputs through copies", [&] {
    Net net(1801);
    const Shape shape = {1, 5, 7, 9};
    const ConvParams p = MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1);
    const int data = net.g.Variable("data");
    const int conv = net.Conv("conv0", data, 5, 5, p, true);
    const int ident = net.g.Op("identity", "ident0", {}, {conv});
    const int add = net.g.Op("elemwise_add", "add0", {}, {ident, data});
    const int relu = net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {add});
    net.g.Output(net.g.Op("_copy", "copy0", {}, {relu}));
    net.g.Output(net.g.Op("_copy", "copy1", {}, {relu}));
    const Tensor x = qv_test::Random(shape, &net.rng);
    const Tensor want = qv_ref::Activation(qv_ref::BroadcastAdd(net.RefConv("conv0", x, p, true), x), "relu");
    const std::vector<Tensor> out = RunSingleInput(net, x);
    REQUIRE(out.size() == 2);
    ExpectClose(out[0], want, "copy0");
    ExpectClose(out[1], want, "copy1");
  });
}

TEST_CASE("fusion is skipped where an intermediate has other consumers or the activation is not relu", "[graph][fusion]") {
  const Shape shape = {3, 5, 7, 9};
  const ConvParams p = MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1);

  // conv0 feeds bn0 and, separately, relu1: folding bn0 into conv0 must not change relu1's input.
  RunCase("conv feeding BatchNorm and another branch", [&] {
    Net net(2100);
    const int data = net.g.Variable("data");
    const int conv = net.Conv("conv0", data, 5, 5, p, true);
    const int bn = net.BatchNorm("bn0", conv, 5, {{"fix_gamma", "False"}});
    const int relu1 = net.g.Op("Activation", "relu1", {{"act_type", "relu"}}, {conv});
    net.g.Output(net.g.Op("elemwise_add", "add0", {}, {bn, relu1}));
    const Tensor x = qv_test::Random(shape, &net.rng);
    const Tensor c = net.RefConv("conv0", x, p, true);
    const Tensor want = qv_ref::BroadcastAdd(net.RefBatchNorm("bn0", c, 1e-3f, false), qv_ref::Activation(c, "relu"));
    const std::vector<Tensor> out = RunSingleInput(net, x);
    REQUIRE(out.size() == 1);
    ExpectClose(out[0], want, "conv feeding BatchNorm and another branch");
  });

  // conv0 feeds relu0 and add0: fusing the relu into conv0 must not hand add0 the rectified values.
  RunCase("conv feeding relu and an add", [&] {
    Net net(2101);
    const int data = net.g.Variable("data");
    const int conv = net.Conv("conv0", data, 5, 5, p, false);
    const int relu = net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {conv});
    net.g.Output(net.g.Op("elemwise_add", "add0", {}, {relu, conv}));
    const Tensor x = qv_test::Random(shape, &net.rng);
    const Tensor c = net.RefConv("conv0", x, p, false);
    const std::vector<Tensor> out = RunSingleInput(net, x);
    REQUIRE(out.size() == 1);
    ExpectClose(out[0], qv_ref::BroadcastAdd(qv_ref::Activation(c, "relu"), c), "conv feeding relu and an add");
  });

  // bn0 -> relu0 where bn0 is also read by add0 (pre-activation block whose BN output is reused).
  RunCase("BatchNorm feeding relu and an add", [&] {
    Net net(2102);
    const int data = net.g.Variable("data");
    const int bn = net.BatchNorm("bn0", data, 5, {{"fix_gamma", "False"}});
    const int relu = net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {bn});
    net.g.Output(net.g.Op("elemwise_add", "add0", {}, {bn, relu}));
    const Tensor x = qv_test::Random(shape, &net.rng, -2.0f, 2.0f);
    const Tensor b = net.RefBatchNorm("bn0", x, 1e-3f, false);
    const std::vector<Tensor> out = RunSingleInput(net, x);
    REQUIRE(out.size() == 1);
    ExpectClose(out[0], qv_ref::BroadcastAdd(b, qv_ref::Activation(b, "relu")), "BatchNorm feeding relu and an add");
  });

  // Activations other than relu after conv, conv -> bn, and a residual add.
  for (const std::string act : {"sigmoid", "tanh", "softrelu", "softsign", "relu"}) {
    for (int form = 0; form < 3; ++form) {
      const char* const forms[] = {"conv -> ", "conv -> bn -> ", "conv + data -> "};
      const std::string what = std::string(forms[form]) + act;
      RunCase(what, [&] {
        Net net(2110 + static_cast<unsigned>(form));
        const int data = net.g.Variable("data");
        int head = net.Conv("conv0", data, 5, 5, p, true);
        if (form == 1) head = net.BatchNorm("bn0", head, 5, {{"fix_gamma", "False"}});
        if (form == 2) head = net.g.Op("elemwise_add", "add0", {}, {head, data});
        net.g.Output(net.g.Op("Activation", "act0", {{"act_type", act}}, {head}));
        const Tensor x = qv_test::Random(shape, &net.rng);
        Tensor want = net.RefConv("conv0", x, p, true);
        if (form == 1) want = net.RefBatchNorm("bn0", want, 1e-3f, false);
        if (form == 2) want = qv_ref::BroadcastAdd(want, x);
        want = qv_ref::Activation(want, act);
        const std::vector<Tensor> out = RunSingleInput(net, x);
        REQUIRE(out.size() == 1);
        ExpectClose(out[0], want, what);
      });
    }
  }

  // A residual add of a convolution with itself.
  RunCase("conv + conv (same node) -> relu", [&] {
    Net net(2120);
    const int data = net.g.Variable("data");
    const int conv = net.Conv("conv0", data, 5, 8, p, true);
    const int add = net.g.Op("elemwise_add", "add0", {}, {conv, conv});
    net.g.Output(net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {add}));
    const Tensor x = qv_test::Random(shape, &net.rng);
    const Tensor c = net.RefConv("conv0", x, p, true);
    const std::vector<Tensor> out = RunSingleInput(net, x);
    REQUIRE(out.size() == 1);
    ExpectClose(out[0], qv_ref::Activation(qv_ref::BroadcastAdd(c, c), "relu"), "conv + conv (same node) -> relu");
  });

  // FullyConnected -> relu, and BatchNorm after FullyConnected (2-D data).
  RunCase("FullyConnected -> BatchNorm -> relu", [&] {
    Net net(2130);
    net.Param("fc0_weight", {13, 5 * 7 * 9}, -0.05f, 0.05f);
    net.Param("fc0_bias", {13});
    const int data = net.g.Variable("data");
    const int fc = net.g.Op("FullyConnected", "fc0", {{"num_hidden", "13"}},
                            {data, net.g.Variable("fc0_weight"), net.g.Variable("fc0_bias")});
    const int bn = net.BatchNorm("bn0", fc, 13, {{"fix_gamma", "False"}});
    net.g.Output(net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {bn}));
    const Tensor x = qv_test::Random(shape, &net.rng);
    const Tensor f = qv_ref::FullyConnected(x, net.params.at("fc0_weight"), &net.params.at("fc0_bias"), true);
    const Tensor want = qv_ref::Activation(net.RefBatchNorm("bn0", f, 1e-3f, false), "relu");
    const std::vector<Tensor> out = RunSingleInput(net, x);
    REQUIRE(out.size() == 1);
    ExpectClose(out[0], want, "FullyConnected -> BatchNorm -> relu");
  });
}
