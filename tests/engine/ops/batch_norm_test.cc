// BatchNorm (inference) against the reference, with MXNet's defaults (eps 1e-3, fix_gamma True).
#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

TEST_CASE("BatchNorm (inference) matches the reference, fix_gamma default True", "[ops][batch_norm]") {
  struct Case {
    Shape x;
    AttrMap attrs;
    float eps;
    bool fix_gamma;
  };
  const std::vector<Case> cases = {
      {{1, 3, 7, 9}, {}, 1e-3f, true},  // MXNet's defaults: eps 1e-3, fix_gamma True
      {{3, 13, 5, 5}, {{"fix_gamma", "False"}}, 1e-3f, false},
      {{3, 13, 5, 5}, {{"fix_gamma", "True"}, {"eps", "1e-05"}}, 1e-5f, true},
      {{1, 16, 9, 7}, {{"fix_gamma", "False"}, {"eps", "2e-05"}, {"momentum", "0.9"}}, 2e-5f, false},
      {{3, 5, 1, 1}, {{"fix_gamma", "False"}, {"eps", "0.1"}}, 0.1f, false},
      {{3, 5}, {{"fix_gamma", "False"}}, 1e-3f, false},  // 2-D data (N, C)
      {{2, 3, 4, 5}, {{"fix_gamma", "False"}, {"use_global_stats", "True"}}, 1e-3f, false},
  };
  unsigned seed = 200;
  for (const Case& c : cases) {
    std::string what = "BatchNorm x=" + ShapeStr(c.x);
    for (const auto& kv : c.attrs) what += " " + kv.first + "=" + kv.second;
    RunCase(what, [&] {
      Net net(seed++);
      const int data = net.g.Variable("data");
      net.g.Output(net.BatchNorm("bn0", data, c.x[1], c.attrs));
      const Tensor x = qv_test::Random(c.x, &net.rng, -2.0f, 2.0f);
      const std::vector<Tensor> out = RunSingleInput(net, x);
      REQUIRE(out.size() == 1);
      ExpectClose(out[0], net.RefBatchNorm("bn0", x, c.eps, c.fix_gamma), what);
    });
  }
}

TEST_CASE("BatchNorm with a fused ReLU matches the reference on row-major and blocked data", "[ops][batch_norm]") {
  for (const bool after_convolution : {false, true}) {
    const std::string what = after_convolution ? "conv -> add -> BatchNorm -> relu (blocked)"
                                               : "data -> BatchNorm -> relu (row-major)";
    RunCase(what, [&] {
      Net net(after_convolution ? 230 : 231);
      const Shape shape = {2, 16, 6, 7};
      int x = net.g.Variable("data");
      if (after_convolution) {  // an addition keeps the convolution's blocked layout, and nothing folds
        const int conv = net.Conv("conv0", x, 16, 16, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1), true);
        x = net.g.Op("elemwise_add", "add0", {}, {conv, x});
      }
      const int bn = net.BatchNorm("bn0", x, 16, {{"fix_gamma", "False"}});
      net.g.Output(net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {bn}));
      const Tensor data = qv_test::Random(shape, &net.rng, -2.0f, 2.0f);
      Tensor bn_in = data;
      if (after_convolution) {
        qv_ref::ConvParams p = MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1);
        bn_in = qv_ref::Convolution(data, net.params.at("conv0_weight"), &net.params.at("conv0_bias"), p);
        for (int64_t i = 0; i < bn_in.size(); ++i) bn_in.data[i] += data.data[i];
      }
      Tensor want = net.RefBatchNorm("bn0", bn_in, 1e-3f, false);
      for (float& v : want.data) v = std::max(v, 0.f);
      ExpectClose(RunSingleInput(net, data).at(0), want, what);
    });
  }
}
