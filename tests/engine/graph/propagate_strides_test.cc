// PropagateStrides (graph/propagate_strides.cc): where a stride moves and where it must stay, and that a
// ResNet v1 stage boundary computes the same values once it moved (against the plain loops of
// support/reference_ops.h).
#include <cstring>

#include "backends/backend.h"
#include "engine/ops/op_test_util.h"
#include "graph/bound_graph.h"
#include "graph/symbol_json.h"

using namespace qv_op_test;

namespace {

// How the next stage reads the block's output: two 1x1 convolutions (the main path and the projection)
// whose results are added.
struct Readers {
  ConvParams main, projection;
  bool block_is_output = false;  // the block's output is also a graph output
};

const ConvParams kBody3x3 = MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1);
const ConvParams kBody1x1 = MakeConv(1, 1, 1, 1, 0, 0, 1, 1, 1);

// A ResNet v1 bottleneck, block = relu(c3(relu(c2(relu(c1(data))))) + data), then the next stage's
// readers: relu(p(block) + q(block)).
Net Boundary(unsigned seed, int64_t channels, const Readers& r) {
  Net net(seed);
  const int data = net.g.Variable("data");
  auto relu = [&](const std::string& name, int in) { return net.g.Op("Activation", name, {{"act_type", "relu"}}, {in}); };
  const int c1 = relu("r1", net.Conv("c1", data, channels, channels, kBody1x1, true));
  const int c2 = relu("r2", net.Conv("c2", c1, channels, channels, kBody3x3, true));
  const int block = relu("r3", net.g.Op("elemwise_add", "add", {}, {net.Conv("c3", c2, channels, channels, kBody1x1, true), data}));
  const int p = net.Conv("p", block, channels, 2 * channels, r.main, true);
  const int q = net.Conv("q", block, channels, 2 * channels, r.projection, true);
  net.g.Output(relu("r4", net.g.Op("elemwise_add", "next", {}, {p, q})));
  if (r.block_is_output) net.g.Output(block);
  return net;
}

Tensor BoundaryReference(const Net& net, const Tensor& x, const Readers& r) {
  auto relu = [](const Tensor& t) { return qv_ref::Activation(t, "relu"); };
  const Tensor c2 = relu(net.RefConv("c2", relu(net.RefConv("c1", x, kBody1x1, true)), kBody3x3, true));
  const Tensor block = relu(qv_ref::BroadcastAdd(net.RefConv("c3", c2, kBody1x1, true), x));
  return relu(qv_ref::BroadcastAdd(net.RefConv("p", block, r.main, true), net.RefConv("q", block, r.projection, true)));
}

// The net's graph as the runtime rewrites it for the CPU.
qv::BoundGraph Optimized(const Net& net) {
  std::map<std::string, qv::NDArrayPtr> params;
  for (const auto& [name, t] : net.params) {
    params[name] = qv::NDArray::Create(t.shape, qv::DType::kFloat32);
    std::memcpy(params[name]->data(), t.data.data(), t.data.size() * sizeof(float));
  }
  qv::BoundGraph g = qv::BindParameters(qv::ParseSymbolJson(net.g.ToJson()), params);
  qv::Optimize(g, qv::FindBackend(qv::Device{}).fusions());
  return g;
}

const qv::Node& NodeNamed(const qv::BoundGraph& g, const std::string& name) {
  for (const qv::Node& node : g.graph.nodes)
    if (node.name == name) return node;
  FAIL("no node " << name);
  return g.graph.nodes.front();
}

std::vector<int64_t> StrideOf(const qv::BoundGraph& g, const std::string& name) {
  return qv::AttrsOf(NodeNamed(g, name)).GetTuple("stride", {1, 1});
}

}  // namespace

TEST_CASE("1x1 readers of stride s move their stride up a ResNet v1 bottleneck, values unchanged",
          "[graph][fusion][strides]") {
  struct Case {
    qv::Shape x;
    int64_t stride;
  };
  // Odd sizes: the strided output keeps the last row and column when the size is odd.
  for (const Case& c : {Case{{1, 8, 8, 8}, 2}, Case{{2, 8, 9, 7}, 2}, Case{{1, 16, 10, 11}, 3}}) {
    const std::string what = "x=" + ShapeStr(c.x) + " stride " + std::to_string(c.stride);
    RunCase(what, [&] {
      const ConvParams reader = MakeConv(1, 1, c.stride, c.stride, 0, 0, 1, 1, 1);
      const Readers r{reader, reader};
      Net net = Boundary(1700 + static_cast<unsigned>(c.x[2]), c.x[1], r);

      const qv::BoundGraph g = Optimized(net);
      const std::vector<int64_t> s = {c.stride, c.stride}, one = {1, 1};
      CHECK(StrideOf(g, "c2") == s);  // the 3x3 convolution computes one pixel in s
      CHECK(StrideOf(g, "c3") == one);
      CHECK(StrideOf(g, "p") == one);
      CHECK(StrideOf(g, "q") == one);
      CHECK(StrideOf(g, "c1") == one);  // read by a 3x3 convolution: every pixel is needed
      // c3 adds the block's input, which c1 still reads whole: it is subsampled for the sum.
      const qv::Node& residual = g.graph.nodes[NodeNamed(g, "c3").inputs.back().node];
      CHECK(residual.op == "Pooling");
      CHECK(qv::AttrsOf(residual).GetTuple("stride", {}) == s);
      CHECK(qv::AttrsOf(residual).GetTuple("kernel", {}) == one);

      const Tensor x = qv_test::Random(c.x, &net.rng);
      const std::vector<Tensor> out = RunSingleInput(net, x);
      REQUIRE(out.size() == 1);
      ExpectClose(out[0], BoundaryReference(net, x, r), what);
    });
  }
}

TEST_CASE("a stride stays where a reader needs other pixels, the readers disagree or the tensor is an output",
          "[graph][fusion][strides]") {
  const ConvParams by2 = MakeConv(1, 1, 2, 2, 0, 0, 1, 1, 1);
  struct Case {
    std::string what;
    Readers readers;
  };
  const std::vector<Case> cases = {
      {"a 3x3 reader", {by2, MakeConv(3, 3, 2, 2, 1, 1, 1, 1, 1)}},
      {"a padded 1x1 reader", {by2, MakeConv(1, 1, 2, 2, 1, 1, 1, 1, 1)}},
      {"strides 2 and 3", {by2, MakeConv(1, 1, 3, 3, 0, 0, 1, 1, 1)}},
      {"the block is a graph output", {by2, by2, true}},
  };
  for (const Case& c : cases) {
    RunCase(c.what, [&] {
      Net net = Boundary(1800, 8, c.readers);
      const qv::BoundGraph g = Optimized(net);
      CHECK(StrideOf(g, "c2") == std::vector<int64_t>{1, 1});
      CHECK(StrideOf(g, "c3") == std::vector<int64_t>{1, 1});
      CHECK(StrideOf(g, "p") == std::vector<int64_t>{2, 2});
    });
  }
}
