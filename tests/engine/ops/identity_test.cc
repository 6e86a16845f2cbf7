// Dropout, identity, _copy and BlockGrad alone pass their data through (inference).
#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

TEST_CASE("Dropout, identity and _copy pass data through", "[ops][identity]") {
  for (const std::string op_name : {"Dropout", "identity", "_copy", "BlockGrad"}) {
    const std::string what = op_name + " alone";
    RunCase(what, [&] {
      Net net(1100);
      const int data = net.g.Variable("data");
      AttrMap attrs;
      if (op_name == "Dropout") attrs = {{"p", "0.5"}, {"mode", "training"}};
      net.g.Output(net.g.Op(op_name, "pass0", attrs, {data}));
      const Tensor x = qv_test::Random({3, 5, 7, 9}, &net.rng);
      const std::vector<Tensor> out = RunSingleInput(net, x);
      REQUIRE(out.size() == 1);
      ExpectClose(out[0], x, what);
    });
  }
}
