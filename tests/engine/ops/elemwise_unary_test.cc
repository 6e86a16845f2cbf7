// exp against std::exp, on data from the plan's input and from a convolution (whose output the CPU may
// keep in a blocked layout).
#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

Tensor RefExp(Tensor x) {
  for (float& v : x.data) v = std::exp(v);
  return x;
}

}  // namespace

TEST_CASE("exp is std::exp element by element, as MXNet's expf", "[ops][exp]") {
  for (const Shape& shape : std::vector<Shape>{{1000}, {2, 3, 5, 7}}) {
    const Tensor x = RandomTensor(shape, 740, -20.f, 20.f);
    ExpectClose(RunUnary("exp", {}, x), RefExp(x), "exp " + ShapeStr(shape), 0.0);
  }
}

TEST_CASE("exp of a convolution's output matches the reference", "[ops][exp]") {
  Net net(741);
  const int data = net.g.Variable("data");
  const ConvParams p = MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1);
  net.g.Output(net.g.Op("exp", "exp0", {}, {net.Conv("conv0", data, 8, 16, p, true)}));
  const Tensor x = qv_test::Random({2, 8, 9, 9}, &net.rng, -1.f, 1.f);
  ExpectClose(RunSingleInput(net, x).at(0), RefExp(net.RefConv("conv0", x, p, true)), "exp(conv)");
}
