// A chain whose channel counts are not multiples of oneDNN's blocks (8 / 16 lanes): conv, pool,
// concat, broadcast add and softmax across layout changes, checked against the reference.
#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

TEST_CASE("a chain across blocked-layout channel counts: conv, pool, concat, add, softmax", "[plan][blocked]") {
  // conv0 (3 -> 17) -> relu -> max pool -> conv1 (17 -> 33) and conv2 (17 -> 19, 1x1, stride 1)
  // -> Concat (52 channels) -> + broadcast bias-like variable input -> softmax over channels.
  for (int64_t batch : {1, 3}) {
    const std::string what = "blocked chain batch " + std::to_string(batch);
    RunCase(what, [&] {
      Net net(2200 + static_cast<unsigned>(batch));
      const ConvParams p0 = MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1), p1 = MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1);
      const ConvParams p2 = MakeConv(1, 1, 1, 1, 0, 0, 1, 1, 1);
      const int data = net.g.Variable("data");
      const int conv0 = net.Conv("conv0", data, 3, 17, p0, true);
      const int relu0 = net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {conv0});
      const int pool0 = net.g.Op("Pooling", "pool0",
                                 {{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}, {"pool_type", "max"},
                                  {"pooling_convention", "full"}},
                                 {relu0});
      const int conv1 = net.Conv("conv1", pool0, 17, 33, p1, false);
      const int conv2 = net.Conv("conv2", pool0, 17, 19, p2, true);
      const int cat = net.g.Op("Concat", "concat0", {{"num_args", "2"}, {"dim", "1"}}, {conv1, conv2});
      const int shift = net.g.Variable("shift");
      const int add = net.g.Op("broadcast_add", "add0", {}, {cat, shift});
      net.g.Output(net.g.Op("softmax", "softmax0", {{"axis", "1"}}, {add}));
      net.g.Output(cat);
      CompiledGraph op(net.g.ToJson(), net.params);
      REQUIRE(op.InputNames() == std::vector<std::string>{"data", "shift"});
      const Tensor x = qv_test::Random({batch, 3, 11, 9}, &net.rng);
      const Tensor s = qv_test::Random({1, 52, 1, 1}, &net.rng);
      PoolParams mp;
      mp.kernel_h = mp.kernel_w = 2;
      mp.stride_h = mp.stride_w = 2;
      mp.full_convention = true;
      const Tensor pooled = qv_ref::Pooling(qv_ref::Activation(net.RefConv("conv0", x, p0, true), "relu"), mp);
      const Tensor c = qv_ref::Concat({net.RefConv("conv1", pooled, p1, false), net.RefConv("conv2", pooled, p2, true)}, 1);
      const std::vector<Tensor> out = op.Run({x, s});
      REQUIRE(out.size() == 2);
      ExpectClose(out[0], qv_ref::Softmax(qv_ref::BroadcastAdd(c, s), 1, 1.0f), what + " [softmax]");
      ExpectClose(out[1], c, what + " [concat]");
    });
  }
}

