// Activation, every act_type, against the reference.
#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

TEST_CASE("Activation matches the reference for every act_type", "[ops][activation]") {
  const std::vector<std::string> types = {"relu", "sigmoid", "tanh", "softrelu", "softsign"};
  const std::vector<Shape> shapes = {{1, 3, 7, 9}, {3, 13, 5, 5}, {3, 5}};
  unsigned seed = 300;
  for (const std::string& type : types) {
    for (const Shape& shape : shapes) {
      const std::string what = "Activation " + type + " x=" + ShapeStr(shape);
      RunCase(what, [&] {
        Net net(seed++);
        const int data = net.g.Variable("data");
        net.g.Output(net.g.Op("Activation", "act0", {{"act_type", type}}, {data}));
        const Tensor x = qv_test::Random(shape, &net.rng, -5.0f, 5.0f);
        const std::vector<Tensor> out = RunSingleInput(net, x);
        REQUIRE(out.size() == 1);
        ExpectClose(out[0], qv_ref::Activation(x, type), what);
      });
    }
  }
}

TEST_CASE("sigmoid and tanh compute exactly what Activation does", "[ops][activation]") {
  // Both on a convolution's output too, where the CPU may keep a blocked layout.
  Net net(320);
  const int data = net.g.Variable("data");
  const ConvParams p = MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1);
  const int conv = net.Conv("conv0", data, 8, 16, p, true);
  for (const std::string op : {"sigmoid", "tanh"})
    for (int input : {data, conv}) {
      const std::string tag = op + std::to_string(input);
      net.g.Output(net.g.Op(op, op + tag, {}, {input}));
      net.g.Output(net.g.Op("Activation", "act" + tag, {{"act_type", op}}, {input}));
    }
  const Tensor x = qv_test::Random({2, 8, 9, 9}, &net.rng, -8.f, 8.f);
  const std::vector<Tensor> out = RunSingleInput(net, x);
  REQUIRE(out.size() == 8);
  for (size_t i = 0; i < 2; ++i) {
    const std::string op = i == 0 ? "sigmoid" : "tanh";
    ExpectClose(out[4 * i], out[4 * i + 1], op + "(data) vs Activation", 0.0);
    ExpectClose(out[4 * i + 2], out[4 * i + 3], op + "(conv) vs Activation", 0.0);
    ExpectClose(out[4 * i], qv_ref::Activation(x, op), op + "(data) vs reference");
  }
}
