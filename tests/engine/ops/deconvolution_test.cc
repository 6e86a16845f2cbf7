// Deconvolution against a direct scatter reference written here: every input pixel adds its value
// times the kernel into the output at stride steps, shifted up-left by the crop (pad) and cut to the
// output size (which adj extends at the bottom and right). Strides, pads, adj, dilation, groups,
// target_shape, bias, a following BatchNorm (folded) and ReLU (fused), and the error messages.
#include <algorithm>

#include "engine/ops/op_test_util.h"
#include "ops/int8_hints.h"

using namespace qv_op_test;

namespace {

struct DeconvCase {
  Shape x;
  int64_t filters;
  std::array<int64_t, 2> kernel, stride, pad, adj, dilate;
  int64_t groups;
  bool bias;
  std::array<int64_t, 2> target;  // {0, 0}: none
};

std::string Describe(const DeconvCase& c) {
  std::ostringstream os;
  os << "x=" << ShapeStr(c.x) << " filters=" << c.filters << " kernel " << Tuple({c.kernel[0], c.kernel[1]})
     << " stride " << Tuple({c.stride[0], c.stride[1]}) << " pad " << Tuple({c.pad[0], c.pad[1]}) << " adj "
     << Tuple({c.adj[0], c.adj[1]}) << " dilate " << Tuple({c.dilate[0], c.dilate[1]}) << " groups " << c.groups
     << (c.bias ? " bias" : " no_bias") << " target " << Tuple({c.target[0], c.target[1]});
  return os.str();
}

AttrMap DeconvAttrs(const DeconvCase& c) {
  AttrMap a = {{"kernel", Tuple({c.kernel[0], c.kernel[1]})},
               {"stride", Tuple({c.stride[0], c.stride[1]})},
               {"pad", Tuple({c.pad[0], c.pad[1]})},
               {"num_filter", std::to_string(c.filters)},
               {"no_bias", c.bias ? "False" : "True"}};
  if (c.adj != std::array<int64_t, 2>{0, 0}) a["adj"] = Tuple({c.adj[0], c.adj[1]});
  if (c.dilate != std::array<int64_t, 2>{1, 1}) a["dilate"] = Tuple({c.dilate[0], c.dilate[1]});
  if (c.groups != 1) a["num_group"] = std::to_string(c.groups);
  if (c.target != std::array<int64_t, 2>{0, 0}) a["target_shape"] = Tuple({c.target[0], c.target[1]});
  return a;
}

// data -> Deconvolution "deconv0" with a random weight (and bias) in `net`; returns the node.
int AddDeconv(Net& net, int data, const DeconvCase& c) {
  net.Param("deconv0_weight", {c.x[1], c.filters / c.groups, c.kernel[0], c.kernel[1]});
  std::vector<qv_test::Entry> inputs = {data, net.g.Variable("deconv0_weight")};
  if (c.bias) {
    net.Param("deconv0_bias", {c.filters});
    inputs.push_back(net.g.Variable("deconv0_bias"));
  }
  return net.g.Op("Deconvolution", "deconv0", DeconvAttrs(c), inputs);
}

Tensor RefDeconv(const Tensor& x, const Tensor& w, const Tensor* bias, const DeconvCase& c) {
  std::array<int64_t, 2> crop = c.pad, extend = c.adj, out{};
  for (int i = 0; i < 2; ++i) {
    const int64_t span = c.stride[i] * (x.shape[2 + i] - 1) + c.dilate[i] * (c.kernel[i] - 1) + 1;
    if (c.target != std::array<int64_t, 2>{0, 0}) {
      // The span is cut to the target, the odd row or column more at the top/left.
      crop[i] = (span - c.target[i] + 1) / 2;
      extend[i] = 0;
      out[i] = c.target[i];
    } else {
      out[i] = span - 2 * crop[i] + extend[i];
    }
  }
  const int64_t n = x.shape[0], channels = x.shape[1], per_in = channels / c.groups, per_out = c.filters / c.groups;
  Tensor y(Shape{n, c.filters, out[0], out[1]});
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ci = 0; ci < channels; ++ci)
      for (int64_t ih = 0; ih < x.shape[2]; ++ih)
        for (int64_t iw = 0; iw < x.shape[3]; ++iw) {
          const float v = x.data[((b * channels + ci) * x.shape[2] + ih) * x.shape[3] + iw];
          for (int64_t f = 0; f < per_out; ++f) {
            const int64_t o = ci / per_in * per_out + f;
            for (int64_t kh = 0; kh < c.kernel[0]; ++kh)
              for (int64_t kw = 0; kw < c.kernel[1]; ++kw) {
                const int64_t oh = ih * c.stride[0] + kh * c.dilate[0] - crop[0];
                const int64_t ow = iw * c.stride[1] + kw * c.dilate[1] - crop[1];
                if (oh < 0 || oh >= out[0] || ow < 0 || ow >= out[1]) continue;
                y.data[((b * c.filters + o) * out[0] + oh) * out[1] + ow] +=
                    v * w.data[((ci * per_out + f) * c.kernel[0] + kh) * c.kernel[1] + kw];
              }
          }
        }
  if (bias)
    for (int64_t i = 0; i < y.size(); ++i) y.data[i] += bias->data[i / (out[0] * out[1]) % c.filters];
  return y;
}

Tensor RefOf(const Net& net, const Tensor& x, const DeconvCase& c) {
  return RefDeconv(x, net.params.at("deconv0_weight"), c.bias ? &net.params.at("deconv0_bias") : nullptr, c);
}

const std::vector<DeconvCase> kCases = {
    {{1, 3, 5, 4}, 4, {3, 3}, {1, 1}, {0, 0}, {0, 0}, {1, 1}, 1, true, {0, 0}},
    {{2, 5, 4, 3}, 6, {4, 4}, {2, 2}, {1, 1}, {0, 0}, {1, 1}, 1, false, {0, 0}},  // simple_pose's head
    {{1, 4, 5, 6}, 5, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, 1, true, {0, 0}},   // adj under a crop
    {{2, 3, 4, 5}, 4, {3, 3}, {2, 2}, {0, 0}, {1, 1}, {1, 1}, 1, true, {0, 0}},   // adj past the span: bias only
    {{1, 3, 6, 5}, 4, {2, 2}, {3, 3}, {0, 1}, {2, 1}, {1, 1}, 1, false, {0, 0}},  // stride over kernel
    {{1, 4, 5, 5}, 3, {3, 3}, {2, 2}, {2, 1}, {0, 0}, {2, 2}, 1, true, {0, 0}},   // dilation
    {{1, 6, 4, 5}, 4, {3, 3}, {2, 1}, {1, 1}, {1, 0}, {1, 2}, 2, true, {0, 0}},   // groups, anisotropic
    {{2, 8, 4, 4}, 8, {4, 4}, {2, 2}, {1, 1}, {0, 0}, {1, 1}, 8, false, {0, 0}},  // depthwise (bilinear UpSampling)
    {{1, 3, 4, 4}, 4, {3, 3}, {2, 2}, {5, 5}, {1, 1}, {1, 1}, 1, true, {9, 8}},   // target_shape over pad/adj
    {{2, 3, 5, 4}, 2, {4, 4}, {2, 2}, {0, 0}, {0, 0}, {1, 1}, 1, false, {10, 7}},  // target: odd crop
    {{1, 2, 3, 4}, 3, {2, 3}, {1, 2}, {0, 1}, {0, 1}, {1, 1}, 1, true, {0, 0}},   // rectangular kernel
    {{2, 17, 5, 6}, 33, {4, 4}, {2, 2}, {1, 1}, {0, 0}, {1, 1}, 1, true, {0, 0}},  // around oneDNN's blocks
    {{1, 32, 3, 3}, 16, {4, 4}, {2, 2}, {1, 1}, {0, 0}, {1, 1}, 4, false, {0, 0}},
};

}  // namespace

TEST_CASE("Deconvolution matches the scatter reference", "[ops][deconvolution]") {
  unsigned seed = 300;
  for (const DeconvCase& c : kCases) {
    const std::string what = "Deconvolution " + Describe(c);
    RunCase(what, [&] {
      Net net(seed++);
      net.g.Output(AddDeconv(net, net.g.Variable("data"), c));
      const Tensor x = qv_test::Random(c.x, &net.rng);
      const std::vector<Tensor> out = RunSingleInput(net, x);
      REQUIRE(out.size() == 1);
      ExpectClose(out[0], RefOf(net, x, c), what);
    });
  }
}

// 1-D: NCW data and a (C, F / groups, k) weight, checked against the 2-D reference over a height of 1.
TEST_CASE("1-D Deconvolution matches the reference over a height of 1", "[ops][deconvolution]") {
  const std::vector<DeconvCase> cases = {
      {{2, 4, 1, 7}, 6, {1, 4}, {1, 2}, {0, 1}, {0, 0}, {1, 1}, 2, true, {0, 0}},
      {{1, 3, 1, 5}, 4, {1, 3}, {1, 3}, {0, 0}, {0, 2}, {1, 2}, 1, false, {0, 0}},
      {{1, 3, 1, 6}, 2, {1, 4}, {1, 2}, {0, 0}, {0, 0}, {1, 1}, 1, true, {0, 11}},
  };
  unsigned seed = 400;
  for (const DeconvCase& c : cases) {
    const std::string what = "1-D Deconvolution " + Describe(c);
    RunCase(what, [&] {
      Net net(seed++);
      AttrMap attrs = {{"kernel", Tuple({c.kernel[1]})}, {"stride", Tuple({c.stride[1]})}, {"pad", Tuple({c.pad[1]})},
                       {"adj", Tuple({c.adj[1]})}, {"dilate", Tuple({c.dilate[1]})},
                       {"num_filter", std::to_string(c.filters)}, {"num_group", std::to_string(c.groups)},
                       {"no_bias", c.bias ? "False" : "True"}};
      if (c.target[1] != 0) attrs["target_shape"] = Tuple({c.target[1]});
      Tensor& w = net.Param("deconv0_weight", {c.x[1], c.filters / c.groups, c.kernel[1]});
      std::vector<qv_test::Entry> inputs = {net.g.Variable("data"), net.g.Variable("deconv0_weight")};
      if (c.bias) {
        net.Param("deconv0_bias", {c.filters});
        inputs.push_back(net.g.Variable("deconv0_bias"));
      }
      net.g.Output(net.g.Op("Deconvolution", "deconv0", attrs, inputs));
      const Tensor x = qv_test::Random({c.x[0], c.x[1], c.x[3]}, &net.rng);
      const std::vector<Tensor> out = RunSingleInput(net, x);
      // The 2-D reference on the same values with a height of 1 (a target's height is that 1).
      DeconvCase c2 = c;
      if (c.target[1] != 0) c2.target[0] = 1;
      const Tensor w2(Shape{w.shape[0], w.shape[1], 1, w.shape[2]}, w.data);
      Tensor want = RefDeconv(Tensor(c.x, x.data), w2, c.bias ? &net.params.at("deconv0_bias") : nullptr, c2);
      want.shape.erase(want.shape.begin() + 2);
      ExpectClose(out.at(0), want, what);
    });
  }
}

TEST_CASE("Deconvolution -> BatchNorm -> ReLU matches the reference, folded and unfused", "[ops][deconvolution]") {
  const DeconvCase c = {{2, 6, 4, 5}, 4, {4, 4}, {2, 2}, {1, 1}, {0, 0}, {1, 1}, 2, false, {0, 0}};
  for (const bool shared : {false, true}) {
    // Shared: the deconvolution's output is also a graph output, so the BatchNorm runs on its own.
    const std::string what = std::string("Deconvolution, BatchNorm, relu") + (shared ? " (BatchNorm unfused)" : "");
    RunCase(what, [&] {
      Net net(77);
      const int deconv = AddDeconv(net, net.g.Variable("data"), c);
      const int bn = net.BatchNorm("bn0", deconv, c.filters, {{"eps", "1e-5"}, {"fix_gamma", "False"}});
      net.g.Output(net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {bn}));
      if (shared) net.g.Output(deconv);
      const Tensor x = qv_test::Random(c.x, &net.rng);
      const std::vector<Tensor> out = RunSingleInput(net, x);
      REQUIRE(out.size() == (shared ? 2u : 1u));
      const Tensor d = RefOf(net, x, c);
      Tensor want = net.RefBatchNorm("bn0", d, 1e-5f, false);
      for (float& v : want.data) v = std::max(v, 0.f);
      ExpectClose(out[0], want, what);
      if (shared) ExpectClose(out[1], d, what + ": the deconvolution's own output");
    });
  }
}

// A bfloat16 or int8 plan (here with a convolution before it, int8-hinted in the int8 plan) runs
// Deconvolution in float32, as MXNet does (its AMP lists Deconvolution among the float32 functions; its
// quantization leaves it out): checked on the plan's own convolution output, to float32's 1e-5. Where
// this CPU lacks the instructions, the plan must be refused for that reason, never for the operator.
TEST_CASE("Deconvolution in a bfloat16 or int8 plan computes in float32", "[ops][deconvolution]") {
  const DeconvCase c = {{2, 5, 4, 3}, 6, {4, 4}, {2, 2}, {1, 1}, {0, 0}, {1, 1}, 1, true, {0, 0}};
  for (const std::string precision : {"int8", "bfloat16"}) {
    Net net(91);
    AttrMap hints;
    if (precision == "int8") hints = {{qv::int8_attr::kInType, "int8"}, {qv::int8_attr::kOutType, "float32"}};
    const int conv = net.Conv("conv0", net.g.Variable("data"), 3, c.x[1], MakeConv(1, 1, 1, 1, 0, 0, 1, 1, 1), true,
                              -1, hints);
    net.g.Output(AddDeconv(net, conv, c));
    net.g.Output(conv);
    const Tensor x = qv_test::Random({c.x[0], 3, c.x[2], c.x[3]}, &net.rng);
    std::unique_ptr<CompiledGraph> op;
    try {
      op = std::make_unique<CompiledGraph>(net.g.ToJson(), net.params, AttrMap{{"precision", precision}});
    } catch (const std::exception& e) {
      const std::string message = e.what();
      INFO(message);
      REQUIRE(message.find("which this CPU lacks") != std::string::npos);
      WARN("not run at precision " << precision << ": " << message);
      continue;
    }
    const std::vector<Tensor> out = op->Run({x});
    ExpectClose(out[0], RefOf(net, out[1], c), "Deconvolution in a " + precision + " plan");
  }
}

TEST_CASE("Deconvolution refuses bad attributes and shapes, naming the node", "[ops][deconvolution]") {
  const DeconvCase base = {{1, 4, 5, 5}, 6, {3, 3}, {2, 2}, {1, 1}, {0, 0}, {1, 1}, 2, true, {0, 0}};
  auto failure = [&](DeconvCase c, const AttrMap& extra, const Shape& weight = {}) {
    return FailureOf([&] {
      Net net(5);
      AddDeconv(net, net.g.Variable("data"), c);
      if (!weight.empty()) net.Param("deconv0_weight", weight);
      GraphBuilder g;
      AttrMap attrs = DeconvAttrs(c);
      for (const auto& [k, v] : extra) attrs[k] = v;
      std::vector<qv_test::Entry> inputs = {g.Variable("data"), g.Variable("deconv0_weight")};
      if (c.bias) inputs.push_back(g.Variable("deconv0_bias"));
      g.Output(g.Op("Deconvolution", "deconv0", attrs, inputs));
      CompiledGraph op(g.ToJson(), net.params);
      op.Run({qv_test::Random(c.x, &net.rng)});
    });
  };
  DeconvCase c = base;
  c.adj = {2, 0};
  ExpectMessage(failure(c, {}), "deconv0", {"adj 2", "smaller than stride 2"});
  c = base;
  c.target = {20, 9};
  ExpectMessage(failure(c, {}), "deconv0", {"target_shape (20, 9)", "larger than"});
  c = base;
  c.stride = {1, 1};
  c.target = {6, 7};  // a crop of 1 from 7 rows needs adj 1, not below stride 1
  ExpectMessage(failure(c, {}), "deconv0", {"from target_shape", "smaller than stride 1"});
  c = base;
  c.pad = {6, 6};  // 11 rows scattered, 12 cropped
  ExpectMessage(failure(c, {}), "deconv0", {"crops the whole output"});
  ExpectMessage(failure(base, {}, {4, 6, 3, 3}), "deconv0", {"weight has shape (4, 6, 3, 3)", "(in_channels, 3, 3, 3)"});
  ExpectMessage(failure(base, {{"kernel", "(3, 3, 3)"}}), "deconv0", {"only 1-D and 2-D deconvolution"});
  ExpectMessage(failure(base, {{"layout", "NHWC"}}), "deconv0", {"layout NHWC", "only NCHW"});
  ExpectMessage(failure(base, {{"num_group", "4"}}), "deconv0", {"num_filter must be a positive multiple of num_group"});
  c = base;
  c.x = {1, 3, 5, 5};
  ExpectMessage(failure(c, {}), "deconv0", {"data channels 3", "num_group 2"});
  ExpectMessage(failure(base, {{"stride", "(2, 2, 2)"}}), "deconv0", {"stride needs 2 values"});
}
