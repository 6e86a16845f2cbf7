// add_n / ElementWiseSum against a plain sum, on graph inputs and on convolution outputs (blocked layouts).
#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

Tensor RunAddN(const std::string& op, const std::vector<Tensor>& xs) {
  GraphBuilder g;
  std::vector<qv_test::Entry> inputs;
  for (size_t i = 0; i < xs.size(); ++i) inputs.push_back(g.Variable("x" + std::to_string(i)));
  g.Output(g.Op(op, "op0", {{"num_args", std::to_string(xs.size())}}, inputs));
  return Run(g, xs).at(0);
}

Tensor Sum(const std::vector<Tensor>& xs) {
  Tensor y = xs[0];
  for (size_t i = 1; i < xs.size(); ++i)
    for (size_t k = 0; k < y.data.size(); ++k) y.data[k] += xs[i].data[k];
  return y;
}

}  // namespace

TEST_CASE("add_n sums any number of inputs, under both names", "[ops][add_n]") {
  for (size_t n : {1, 2, 3, 5}) {
    std::vector<Tensor> xs;
    for (size_t i = 0; i < n; ++i) xs.push_back(RandomTensor({2, 3, 4, 5}, 1200 + static_cast<unsigned>(i)));
    ExpectClose(RunAddN("add_n", xs), Sum(xs), "add_n of " + std::to_string(n), 1e-6);
  }
  const std::vector<Tensor> two = {RandomTensor({7}, 1210), RandomTensor({7}, 1211)};
  ExpectClose(RunAddN("ElementWiseSum", two), Sum(two), "ElementWiseSum", 1e-6);
}

TEST_CASE("add_n of convolution outputs and a graph input", "[ops][add_n]") {
  Net net(1220);
  const int data = net.g.Variable("data");
  const ConvParams p = MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1);
  const int a = net.Conv("conv0", data, 8, 16, p, true), b = net.Conv("conv1", data, 8, 16, p, false);
  net.g.Output(net.g.Op("add_n", "sum", {{"num_args", "2"}}, {a, b}));
  const Tensor x = qv_test::Random({2, 8, 9, 9}, &net.rng, -1.f, 1.f);
  ExpectClose(RunSingleInput(net, x).at(0), Sum({net.RefConv("conv0", x, p, true), net.RefConv("conv1", x, p, false)}),
              "add_n(conv, conv)", 1e-5);
}

TEST_CASE("add_n refuses inputs of different shapes, naming the node", "[ops][add_n]") {
  ExpectMessage(FailureOf([&] { RunAddN("add_n", {RandomTensor({2, 3}, 1), RandomTensor({3, 2}, 2)}); }), "op0",
                {"one shape"});
}
