// One cached op invoked at changing batch sizes and spatial shapes (batch 1, 4, 1, 3, 1) gives each
// answer right: a small classifier checked against the reference at every step.
#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

TEST_CASE("one cached op run at batch 1, then 4, then 1 again gives each answer right", "[cachedop][batch_change]") {
  // A small classifier: conv -> bn -> relu -> max pool -> conv (+bias) -> global avg pool -> flatten
  // -> fc -> softmax.
  Net net(1900);
  const ConvParams p0 = MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1), p1 = MakeConv(3, 3, 2, 2, 1, 1, 1, 1, 1);
  const int data = net.g.Variable("data");
  const int conv0 = net.Conv("conv0", data, 3, 13, p0, false);
  const int bn0 = net.BatchNorm("bn0", conv0, 13, {{"fix_gamma", "False"}});
  const int relu0 = net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {bn0});
  const AttrMap pool_attrs = {{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}, {"pool_type", "max"}};
  const int pool0 = net.g.Op("Pooling", "pool0", pool_attrs, {relu0});
  const int conv1 = net.Conv("conv1", pool0, 13, 16, p1, true);
  const int gap = net.g.Op("Pooling", "pool1", {{"kernel", "(1, 1)"}, {"global_pool", "True"}, {"pool_type", "avg"}},
                           {conv1});
  const int flat = net.g.Op("Flatten", "flatten0", {}, {gap});
  net.Param("fc0_weight", {10, 16}, -0.25f, 0.25f);
  net.Param("fc0_bias", {10});
  const int fc = net.g.Op("FullyConnected", "fc0", {{"num_hidden", "10"}},
                          {flat, net.g.Variable("fc0_weight"), net.g.Variable("fc0_bias")});
  net.g.Output(net.g.Op("softmax", "prob", {{"axis", "-1"}}, {fc}));
  net.g.Output(fc);

  auto reference = [&](const Tensor& x) {
    Tensor t = qv_ref::Activation(net.RefBatchNorm("bn0", net.RefConv("conv0", x, p0, false), 1e-3f, false), "relu");
    PoolParams mp;
    mp.kernel_h = mp.kernel_w = 3;
    mp.stride_h = mp.stride_w = 2;
    mp.pad_h = mp.pad_w = 1;
    t = qv_ref::Pooling(t, mp);
    t = net.RefConv("conv1", t, p1, true);
    PoolParams gp;
    gp.global_pool = true;
    gp.is_max = false;
    t = qv_ref::Flatten(qv_ref::Pooling(t, gp));
    t = qv_ref::FullyConnected(t, net.params.at("fc0_weight"), &net.params.at("fc0_bias"), true);
    return std::vector<Tensor>{qv_ref::Softmax(t, -1, 1.0f), t};
  };

  RunCase("batch 1 / 4 / 1", [&] {
    CompiledGraph op(net.g.ToJson(), net.params);
    REQUIRE(op.InputNames() == std::vector<std::string>{"data"});
    const Tensor x1 = qv_test::Random({1, 3, 11, 9}, &net.rng);
    const Tensor x4 = qv_test::Random({4, 3, 11, 9}, &net.rng);
    const Tensor x1b = qv_test::Random({1, 3, 11, 9}, &net.rng);
    const Tensor x_other = qv_test::Random({3, 3, 8, 12}, &net.rng);  // also a new spatial shape
    int step = 0;
    for (const Tensor* x : {&x1, &x4, &x1b, &x_other, &x1}) {
      const std::string what = "step " + std::to_string(step++) + " x=" + ShapeStr(x->shape);
      const std::vector<Tensor> out = op.Run({*x});
      const std::vector<Tensor> want = reference(*x);
      REQUIRE(out.size() == 2);
      ExpectClose(out[0], want[0], what + " [softmax]");
      ExpectClose(out[1], want[1], what + " [fc]");
    }
  });
}
