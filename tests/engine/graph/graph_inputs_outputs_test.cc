// Which variables a compiled graph takes as data inputs (the non-parameter ones, in graph order) and
// graph outputs that are data inputs themselves, run through the public C API.
#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

TEST_CASE("data inputs are the non-parameter variables, in graph order", "[graph][inputs]") {
  RunCase("input order", [&] {
    Net net(2000);
    const int b = net.g.Variable("b_second");
    const ConvParams p = MakeConv(1, 1, 1, 1, 0, 0, 1, 1, 1);
    const int conv = net.Conv("conv0", b, 3, 3, p, true);
    const int a = net.g.Variable("a_first");
    net.g.Output(net.g.Op("elemwise_add", "add0", {}, {conv, a}));
    CompiledGraph op(net.g.ToJson(), net.params);
    REQUIRE(op.InputNames() == std::vector<std::string>{"b_second", "a_first"});
    const Tensor xb = qv_test::Random({3, 3, 7, 9}, &net.rng), xa = qv_test::Random({3, 3, 7, 9}, &net.rng);
    const std::vector<Tensor> out = op.Run({xb, xa});
    REQUIRE(out.size() == 1);
    ExpectClose(out[0], qv_ref::BroadcastAdd(net.RefConv("conv0", xb, p, true), xa), "input order");
  });
}

TEST_CASE("a graph output that is directly a data input", "[graph][inputs]") {
  RunCase("data as output", [&] {
    Net net(1700);
    const Shape shape = {3, 5, 7, 9};
    const ConvParams p = MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1);
    const int data = net.g.Variable("data");
    net.g.Output(net.Conv("conv0", data, 5, 8, p, true));
    net.g.Output(data);
    const Tensor x = qv_test::Random(shape, &net.rng);
    const std::vector<Tensor> out = RunSingleInput(net, x);
    REQUIRE(out.size() == 2);
    ExpectClose(out[0], net.RefConv("conv0", x, p, true), "data as output [conv]");
    ExpectClose(out[1], x, "data as output [data]");
  });
  RunCase("only output is the data input", [&] {
    Net net(1701);
    net.g.Output(net.g.Variable("data"));
    const Tensor x = qv_test::Random({1, 3, 7, 9}, &net.rng);
    const std::vector<Tensor> out = RunSingleInput(net, x);
    REQUIRE(out.size() == 1);
    ExpectClose(out[0], x, "only output is the data input");
  });
}
