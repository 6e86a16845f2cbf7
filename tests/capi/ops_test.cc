// Every operator, and the graph rewrites the runtime applies (BatchNorm folding, fused activations and
// residual adds, identity removal), checked against the plain loops of tests/support/reference_ops.h.
// Graphs are built as MXNet symbol JSON and run through the public C API only (tests/support/single_op.h),
// on seeded random data over odd shapes, channel counts that are not multiples of 8, and batch 1 and 3.
// Tolerance: max |got - want| <= 1e-5 * max(1, max |want|); a failure prints the worst element.
#include <catch2/catch.hpp>
#include <cmath>
#include <exception>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "support/reference_ops.h"
#include "support/single_op.h"

using qv_ref::ConvParams;
using qv_ref::PoolParams;
using qv_ref::Shape;
using qv_ref::Tensor;
using qv_test::AttrMap;
using qv_test::CompiledGraph;
using qv_test::GraphBuilder;
using qv_test::Tuple;

namespace {

void ExpectClose(const Tensor& got, const Tensor& want, const std::string& what) {
  const qv_test::Comparison c = qv_test::Compare(got, want);
  INFO(what << ": " << c.Describe(got, want));
  CHECK(c.ok());
}

// Runs one case; an exception (a failing C API call) fails this case only, so the others still run.
template <typename Body>
void RunCase(const std::string& what, Body&& body) {
  try {
    body();
  } catch (const std::exception& e) {
    FAIL_CHECK(what << ": " << e.what());
  }
}

std::string ShapeStr(const Shape& s) { return qv_ref::ShapeToString(s); }

// A graph under construction together with the parameter values it binds.
struct Net {
  GraphBuilder g;
  std::map<std::string, Tensor> params;
  std::mt19937 rng;

  explicit Net(unsigned seed) : rng(seed) {}

  Tensor& Param(const std::string& name, const Shape& shape, float lo = -1.0f, float hi = 1.0f) {
    params[name] = qv_test::Random(shape, &rng, lo, hi);
    return params[name];
  }

  // A Convolution node; creates "<name>_weight" (unless weight_node is given) and "<name>_bias".
  int Conv(const std::string& name, int input, int64_t in_channels, int64_t filters, const ConvParams& p,
           bool bias, int weight_node = -1) {
    if (weight_node < 0) {
      const float scale = 1.0f / std::sqrt(static_cast<float>(in_channels / p.num_group * p.kernel_h * p.kernel_w));
      Param(name + "_weight", {filters, in_channels / p.num_group, p.kernel_h, p.kernel_w}, -scale, scale);
      weight_node = g.Variable(name + "_weight");
    }
    std::vector<qv_test::Entry> inputs = {input, weight_node};
    if (bias) {
      Param(name + "_bias", {filters});
      inputs.push_back(g.Variable(name + "_bias"));
    }
    return g.Op("Convolution", name, ConvAttrs(p, filters, bias), inputs);
  }

  static AttrMap ConvAttrs(const ConvParams& p, int64_t filters, bool bias) {
    AttrMap a = {{"kernel", Tuple({p.kernel_h, p.kernel_w})}, {"num_filter", std::to_string(filters)}};
    // Defaults are left out sometimes, spelled out other times, as MXNet's exporters do either.
    if (p.stride_h != 1 || p.stride_w != 1) a["stride"] = Tuple({p.stride_h, p.stride_w});
    if (p.pad_h != 0 || p.pad_w != 0) a["pad"] = Tuple({p.pad_h, p.pad_w});
    else a["pad"] = "(0, 0)";
    if (p.dilate_h != 1 || p.dilate_w != 1) a["dilate"] = Tuple({p.dilate_h, p.dilate_w});
    if (p.num_group != 1) a["num_group"] = std::to_string(p.num_group);
    a["no_bias"] = bias ? "False" : "True";
    return a;
  }

  // A BatchNorm node with random gamma, beta, mean and positive variance.
  int BatchNorm(const std::string& name, int input, int64_t channels, const AttrMap& attrs) {
    Param(name + "_gamma", {channels}, 0.5f, 1.5f);
    Param(name + "_beta", {channels}, -0.5f, 0.5f);
    Param(name + "_moving_mean", {channels}, -0.5f, 0.5f);
    Param(name + "_moving_var", {channels}, 0.25f, 2.0f);
    const int gamma = g.Variable(name + "_gamma"), beta = g.Variable(name + "_beta");
    const int mean = g.Variable(name + "_moving_mean"), var = g.Variable(name + "_moving_var");
    return g.Op("BatchNorm", name, attrs, {input, gamma, beta, mean, var});
  }

  Tensor RefConv(const std::string& name, const Tensor& x, const ConvParams& p, bool bias,
                 const std::string& weight_name = "") const {
    const Tensor& w = params.at(weight_name.empty() ? name + "_weight" : weight_name);
    return qv_ref::Convolution(x, w, bias ? &params.at(name + "_bias") : nullptr, p);
  }

  Tensor RefBatchNorm(const std::string& name, const Tensor& x, float eps, bool fix_gamma) const {
    return qv_ref::BatchNorm(x, params.at(name + "_gamma"), params.at(name + "_beta"), params.at(name + "_moving_mean"),
                             params.at(name + "_moving_var"), eps, fix_gamma);
  }
};

ConvParams MakeConv(int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw,
                    int64_t groups) {
  ConvParams p;
  p.kernel_h = kh;
  p.kernel_w = kw;
  p.stride_h = sh;
  p.stride_w = sw;
  p.pad_h = ph;
  p.pad_w = pw;
  p.dilate_h = dh;
  p.dilate_w = dw;
  p.num_group = groups;
  return p;
}

std::string Describe(const ConvParams& p) {
  std::ostringstream os;
  os << "kernel " << Tuple({p.kernel_h, p.kernel_w}) << " stride " << Tuple({p.stride_h, p.stride_w}) << " pad "
     << Tuple({p.pad_h, p.pad_w}) << " dilate " << Tuple({p.dilate_h, p.dilate_w}) << " groups " << p.num_group;
  return os.str();
}

// Runs a single-data-input graph and returns its outputs, checking the data input list first.
std::vector<Tensor> RunSingleInput(const Net& net, const Tensor& x) {
  CompiledGraph op(net.g.ToJson(), net.params);
  const std::vector<std::string> inputs = op.InputNames();
  REQUIRE(inputs == std::vector<std::string>{"data"});
  return op.Run({x});
}

}  // namespace

// ------------------------------------------------------------------------------------------------------
// Single operators
// ------------------------------------------------------------------------------------------------------

TEST_CASE("Convolution matches the reference", "[ops]") {
  struct Case {
    Shape x;
    int64_t filters;
    ConvParams p;
    bool bias;
  };
  const std::vector<Case> cases = {
      {{1, 3, 7, 9}, 8, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1), true},
      {{3, 5, 7, 9}, 13, MakeConv(3, 3, 2, 2, 1, 1, 1, 1, 1), false},
      {{3, 13, 11, 8}, 5, MakeConv(1, 1, 1, 1, 0, 0, 1, 1, 1), true},
      {{1, 3, 9, 9}, 16, MakeConv(5, 5, 2, 2, 2, 2, 1, 1, 1), true},
      {{1, 3, 15, 13}, 16, MakeConv(7, 7, 2, 2, 3, 3, 1, 1, 1), false},  // ResNet stem, odd size
      {{3, 16, 5, 5}, 32, MakeConv(3, 3, 1, 1, 0, 0, 1, 1, 1), true},
      {{1, 16, 9, 7}, 16, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 16), true},   // depthwise
      {{3, 13, 7, 9}, 13, MakeConv(3, 3, 2, 2, 1, 1, 1, 1, 13), false},  // depthwise, stride 2
      {{1, 4, 7, 9}, 8, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 4), true},      // depthwise, multiplier 2
      {{1, 8, 9, 9}, 4, MakeConv(3, 3, 1, 1, 2, 2, 2, 2, 2), true},      // grouped + dilated
      {{3, 5, 11, 9}, 5, MakeConv(3, 3, 1, 1, 3, 3, 3, 3, 1), false},    // dilation 3
      {{1, 6, 10, 7}, 6, MakeConv(3, 1, 2, 1, 1, 0, 1, 1, 3), false},    // 3x1 kernel, anisotropic stride
      {{3, 3, 7, 9}, 5, MakeConv(2, 4, 1, 3, 0, 2, 1, 1, 1), true},      // even, rectangular kernel
      {{1, 3, 1, 1}, 13, MakeConv(1, 1, 1, 1, 0, 0, 1, 1, 1), true},     // 1x1 image
      // Channel counts around oneDNN's blocked layouts (8 / 16 lanes), not multiples of them.
      {{3, 17, 9, 7}, 33, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1), true},
      {{1, 24, 7, 9}, 13, MakeConv(3, 3, 2, 2, 1, 1, 1, 1, 1), false},
      {{3, 64, 7, 7}, 64, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1), true},
      {{1, 40, 9, 9}, 40, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 40), true},    // wide depthwise
      {{3, 32, 5, 7}, 48, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 4), false},    // 4 groups of 8 -> 12
  };
  unsigned seed = 100;
  for (const Case& c : cases) {
    const std::string what = "Convolution x=" + ShapeStr(c.x) + " filters=" + std::to_string(c.filters) + " " +
                             Describe(c.p) + (c.bias ? " bias" : " no_bias");
    RunCase(what, [&] {
      Net net(seed++);
      const int data = net.g.Variable("data");
      net.g.Output(net.Conv("conv0", data, c.x[1], c.filters, c.p, c.bias));
      const Tensor x = qv_test::Random(c.x, &net.rng);
      const std::vector<Tensor> out = RunSingleInput(net, x);
      REQUIRE(out.size() == 1);
      ExpectClose(out[0], net.RefConv("conv0", x, c.p, c.bias), what);
    });
  }
}

TEST_CASE("BatchNorm (inference) matches the reference, fix_gamma default True", "[ops]") {
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

TEST_CASE("Activation matches the reference for every act_type", "[ops]") {
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

namespace {

// True when some output window of this pooling lies wholly outside the real input (possible in "full"
// mode): MXNet then gives -FLT_MAX (max) or 0 / NaN (avg), cases these tests leave alone.
bool HasEmptyWindow(const Shape& x, const PoolParams& p) {
  if (p.global_pool) return false;
  const int64_t oh = qv_ref::PooledSize(x[2], p.kernel_h, p.pad_h, p.stride_h, p.full_convention);
  const int64_t ow = qv_ref::PooledSize(x[3], p.kernel_w, p.pad_w, p.stride_w, p.full_convention);
  const int64_t last_h = (oh - 1) * p.stride_h - p.pad_h, last_w = (ow - 1) * p.stride_w - p.pad_w;
  return last_h >= x[2] || last_w >= x[3];
}

AttrMap PoolAttrs(const PoolParams& p, bool spell_defaults) {
  AttrMap a;
  a["pool_type"] = p.is_max ? "max" : "avg";
  if (p.global_pool) {
    a["global_pool"] = "True";
    a["kernel"] = "(1, 1)";  // MXNet ignores the kernel of a global pool
    return a;
  }
  a["kernel"] = Tuple({p.kernel_h, p.kernel_w});
  if (spell_defaults || p.stride_h != 1 || p.stride_w != 1) a["stride"] = Tuple({p.stride_h, p.stride_w});
  if (spell_defaults || p.pad_h != 0 || p.pad_w != 0) a["pad"] = Tuple({p.pad_h, p.pad_w});
  if (spell_defaults || p.full_convention) a["pooling_convention"] = p.full_convention ? "full" : "valid";
  if (spell_defaults || !p.count_include_pad) a["count_include_pad"] = p.count_include_pad ? "True" : "False";
  if (spell_defaults) a["global_pool"] = "False";
  return a;
}

std::string Describe(const PoolParams& p) {
  std::ostringstream os;
  os << (p.is_max ? "max" : "avg");
  if (p.global_pool) {
    os << " global";
    return os.str();
  }
  os << " kernel " << Tuple({p.kernel_h, p.kernel_w}) << " stride " << Tuple({p.stride_h, p.stride_w}) << " pad "
     << Tuple({p.pad_h, p.pad_w}) << (p.full_convention ? " full" : " valid")
     << (p.is_max ? "" : (p.count_include_pad ? " count_include_pad" : " exclude_pad"));
  return os.str();
}

}  // namespace

TEST_CASE("Pooling matches MXNet's rules (conventions, padding divisors, global)", "[ops]") {
  struct Window {
    int64_t kh, kw, sh, sw, ph, pw;
  };
  const std::vector<Window> windows = {
      {2, 2, 2, 2, 0, 0}, {3, 3, 2, 2, 1, 1}, {3, 3, 1, 1, 1, 1}, {3, 3, 2, 2, 0, 0},
      {2, 3, 1, 2, 1, 1}, {5, 5, 3, 3, 2, 2}, {3, 2, 3, 2, 0, 1},
  };
  const std::vector<Shape> shapes = {{1, 3, 7, 9}, {3, 5, 8, 8}, {1, 13, 9, 7}, {3, 16, 12, 10}};
  unsigned seed = 400;
  int run = 0, skipped = 0;
  for (const Window& win : windows) {
    for (int is_max = 0; is_max < 2; ++is_max) {
      for (int full = 0; full < 2; ++full) {
        for (int include = 0; include < 2; ++include) {
          if (is_max && !include) continue;  // count_include_pad only matters to avg
          PoolParams p;
          p.is_max = is_max;
          p.full_convention = full;
          p.count_include_pad = include;
          p.kernel_h = win.kh;
          p.kernel_w = win.kw;
          p.stride_h = win.sh;
          p.stride_w = win.sw;
          p.pad_h = win.ph;
          p.pad_w = win.pw;
          for (const Shape& shape : shapes) {
            if (HasEmptyWindow(shape, p)) {
              ++skipped;
              continue;
            }
            ++run;
            const bool spell = (seed % 2) == 0;
            const std::string what = "Pooling x=" + ShapeStr(shape) + " " + Describe(p);
            RunCase(what, [&] {
              Net net(seed++);
              const int data = net.g.Variable("data");
              net.g.Output(net.g.Op("Pooling", "pool0", PoolAttrs(p, spell), {data}));
              const Tensor x = qv_test::Random(shape, &net.rng, -3.0f, 3.0f);
              const std::vector<Tensor> out = RunSingleInput(net, x);
              REQUIRE(out.size() == 1);
              ExpectClose(out[0], qv_ref::Pooling(x, p), what);
            });
          }
        }
      }
    }
  }
  INFO("ran " << run << " pooling cases, skipped " << skipped << " with windows wholly in the padding");
  CHECK(run > 80);

  const std::vector<Shape> global_shapes = {{1, 3, 7, 9}, {3, 16, 5, 5}, {3, 13, 1, 1}, {1, 5, 1, 8}};
  for (const Shape& shape : global_shapes) {
    for (int is_max = 0; is_max < 2; ++is_max) {
      PoolParams p;
      p.global_pool = true;
      p.is_max = is_max;
      const std::string what = "Pooling x=" + ShapeStr(shape) + " " + Describe(p);
      RunCase(what, [&] {
        Net net(seed++);
        const int data = net.g.Variable("data");
        net.g.Output(net.g.Op("Pooling", "pool0", PoolAttrs(p, false), {data}));
        const Tensor x = qv_test::Random(shape, &net.rng, -3.0f, 3.0f);
        const std::vector<Tensor> out = RunSingleInput(net, x);
        REQUIRE(out.size() == 1);
        ExpectClose(out[0], qv_ref::Pooling(x, p), what);
      });
    }
  }
}

TEST_CASE("FullyConnected matches the reference (flatten true and false, bias or not)", "[ops]") {
  struct Case {
    Shape x;
    int64_t hidden;
    bool flatten;
    bool bias;
  };
  const std::vector<Case> cases = {
      {{3, 5, 4, 4}, 10, true, true},  {{1, 13}, 7, true, true},      {{3, 13}, 16, true, false},
      {{3, 3, 7, 9}, 5, true, false},  {{3, 4, 13}, 6, false, true},  {{2, 3, 4, 5}, 8, false, false},
      {{1, 7}, 1, false, true},        {{3, 1, 1, 1}, 13, true, true},
  };
  unsigned seed = 500;
  for (const Case& c : cases) {
    const std::string what = "FullyConnected x=" + ShapeStr(c.x) + " num_hidden=" + std::to_string(c.hidden) +
                             (c.flatten ? " flatten" : " no-flatten") + (c.bias ? " bias" : " no_bias");
    RunCase(what, [&] {
      Net net(seed++);
      const int64_t k = c.flatten ? qv_ref::ElementCount(c.x) / c.x[0] : c.x.back();
      const float scale = 1.0f / std::sqrt(static_cast<float>(k));
      net.Param("fc0_weight", {c.hidden, k}, -scale, scale);
      const int data = net.g.Variable("data");
      std::vector<qv_test::Entry> inputs = {data, net.g.Variable("fc0_weight")};
      if (c.bias) {
        net.Param("fc0_bias", {c.hidden});
        inputs.push_back(net.g.Variable("fc0_bias"));
      }
      AttrMap attrs = {{"num_hidden", std::to_string(c.hidden)}, {"no_bias", c.bias ? "False" : "True"}};
      if (!c.flatten || (seed % 2)) attrs["flatten"] = c.flatten ? "True" : "False";
      net.g.Output(net.g.Op("FullyConnected", "fc0", attrs, inputs));
      const Tensor x = qv_test::Random(c.x, &net.rng);
      const std::vector<Tensor> out = RunSingleInput(net, x);
      REQUIRE(out.size() == 1);
      ExpectClose(out[0], qv_ref::FullyConnected(x, net.params.at("fc0_weight"),
                                                 c.bias ? &net.params.at("fc0_bias") : nullptr, c.flatten),
                  what);
    });
  }
}

TEST_CASE("Flatten matches the reference", "[ops]") {
  const std::vector<Shape> shapes = {{3, 5, 4, 4}, {1, 13}, {2, 3, 1, 7}, {1, 3, 7, 9}};
  unsigned seed = 600;
  for (const Shape& shape : shapes) {
    const std::string what = "Flatten x=" + ShapeStr(shape);
    RunCase(what, [&] {
      Net net(seed++);
      const int data = net.g.Variable("data");
      net.g.Output(net.g.Op("Flatten", "flatten0", {}, {data}));
      const Tensor x = qv_test::Random(shape, &net.rng);
      const std::vector<Tensor> out = RunSingleInput(net, x);
      REQUIRE(out.size() == 1);
      ExpectClose(out[0], qv_ref::Flatten(x), what);
    });
  }
}

TEST_CASE("elemwise_add and broadcast_add match the reference", "[ops]") {
  struct Case {
    std::string op;
    Shape a, b;
  };
  const std::vector<Case> cases = {
      {"elemwise_add", {1, 3, 7, 9}, {1, 3, 7, 9}},
      {"elemwise_add", {3, 13}, {3, 13}},
      {"_Plus", {3, 5, 2, 2}, {3, 5, 2, 2}},
      {"broadcast_add", {3, 5, 4, 4}, {1, 5, 1, 1}},
      {"broadcast_add", {1, 5, 1, 1}, {3, 5, 4, 4}},
      {"broadcast_add", {3, 1, 4}, {5, 1}},
      {"broadcast_add", {1, 13}, {13}},
      {"broadcast_add", {3, 13, 7, 9}, {3, 13, 7, 9}},
      {"broadcast_add", {2, 1, 3}, {1, 4, 1}},
  };
  unsigned seed = 700;
  for (const Case& c : cases) {
    const std::string what = c.op + " " + ShapeStr(c.a) + " + " + ShapeStr(c.b);
    RunCase(what, [&] {
      Net net(seed++);
      const int a = net.g.Variable("lhs_data"), b = net.g.Variable("rhs_data");
      net.g.Output(net.g.Op(c.op, "add0", {}, {a, b}));
      CompiledGraph op(net.g.ToJson(), net.params);
      REQUIRE(op.InputNames() == std::vector<std::string>{"lhs_data", "rhs_data"});
      const Tensor ta = qv_test::Random(c.a, &net.rng), tb = qv_test::Random(c.b, &net.rng);
      const std::vector<Tensor> out = op.Run({ta, tb});
      REQUIRE(out.size() == 1);
      ExpectClose(out[0], qv_ref::BroadcastAdd(ta, tb), what);
    });
  }
}

TEST_CASE("softmax over an axis with temperature matches the reference", "[ops]") {
  struct Case {
    Shape x;
    AttrMap attrs;
    int64_t axis;
    float temperature;
  };
  const std::vector<Case> cases = {
      {{3, 10}, {}, -1, 1.0f},
      {{3, 10}, {{"axis", "1"}}, 1, 1.0f},
      {{2, 5, 3}, {{"axis", "1"}, {"temperature", "2.0"}}, 1, 2.0f},
      {{3, 4, 5}, {{"axis", "0"}, {"temperature", "0.5"}}, 0, 0.5f},
      {{1, 3, 7, 9}, {{"axis", "1"}}, 1, 1.0f},
      {{1, 3, 7, 9}, {{"axis", "-2"}}, -2, 1.0f},
      {{13}, {}, -1, 1.0f},
  };
  unsigned seed = 800;
  for (const Case& c : cases) {
    std::string what = "softmax x=" + ShapeStr(c.x);
    for (const auto& kv : c.attrs) what += " " + kv.first + "=" + kv.second;
    RunCase(what, [&] {
      Net net(seed++);
      const int data = net.g.Variable("data");
      net.g.Output(net.g.Op("softmax", "softmax0", c.attrs, {data}));
      const Tensor x = qv_test::Random(c.x, &net.rng, -4.0f, 4.0f);
      const std::vector<Tensor> out = RunSingleInput(net, x);
      REQUIRE(out.size() == 1);
      ExpectClose(out[0], qv_ref::Softmax(x, c.axis, c.temperature), what);
    });
  }
}

TEST_CASE("SoftmaxOutput ignores its label and normalises like MXNet", "[ops]") {
  struct Case {
    Shape x;
    bool multi_output, preserve_shape;
  };
  const std::vector<Case> cases = {
      {{3, 10}, false, false},        {{2, 3, 4}, false, false},     {{1, 13}, false, false},
      {{2, 5, 3, 4}, true, false},    {{3, 13, 7}, true, false},     {{2, 3, 7}, false, true},
      {{3, 4, 5, 2}, false, true},
  };
  unsigned seed = 900;
  for (const Case& c : cases) {
    const std::string what = "SoftmaxOutput x=" + ShapeStr(c.x) + (c.multi_output ? " multi_output" : "") +
                             (c.preserve_shape ? " preserve_shape" : "");
    RunCase(what, [&] {
      Net net(seed++);
      const int data = net.g.Variable("data");
      const int label = net.g.Variable("softmax_label");
      AttrMap attrs;
      if (c.multi_output) attrs["multi_output"] = "True";
      if (c.preserve_shape) attrs["preserve_shape"] = "True";
      if (seed % 2) attrs["normalization"] = "null";
      net.g.Output(net.g.Op("SoftmaxOutput", "softmax", attrs, {data, label}));
      CompiledGraph op(net.g.ToJson(), net.params);
      CHECK(op.InputNames() == std::vector<std::string>{"data"});  // the label is not a data input
      CHECK(op.OutputNames() == std::vector<std::string>{"softmax_output"});
      const Tensor x = qv_test::Random(c.x, &net.rng, -4.0f, 4.0f);
      const std::vector<Tensor> out = op.Run({x});
      REQUIRE(out.size() == 1);
      ExpectClose(out[0], qv_ref::SoftmaxOutput(x, c.multi_output, c.preserve_shape), what);
    });
  }
}

TEST_CASE("Concat along a dimension matches the reference", "[ops]") {
  struct Case {
    std::vector<Shape> xs;
    int64_t dim;
    bool spell_dim;
  };
  const std::vector<Case> cases = {
      {{{1, 3, 7, 9}, {1, 5, 7, 9}, {1, 13, 7, 9}}, 1, false},
      {{{3, 3, 7, 9}, {3, 16, 7, 9}}, 1, true},
      {{{1, 5, 4, 4}, {3, 5, 4, 4}}, 0, true},
      {{{3, 5, 2, 9}, {3, 5, 7, 9}}, 2, true},
      {{{3, 5, 7, 1}, {3, 5, 7, 8}, {3, 5, 7, 3}}, 3, true},
      {{{3, 13}, {3, 3}}, 1, false},
      {{{3, 13}}, 1, true},  // a single input
  };
  unsigned seed = 1000;
  for (const Case& c : cases) {
    std::string what = "Concat dim=" + std::to_string(c.dim) + " of";
    for (const Shape& s : c.xs) what += " " + ShapeStr(s);
    RunCase(what, [&] {
      Net net(seed++);
      std::vector<qv_test::Entry> inputs;
      std::vector<Tensor> xs;
      for (size_t i = 0; i < c.xs.size(); ++i) {
        inputs.emplace_back(net.g.Variable("data" + std::to_string(i)));
        xs.push_back(qv_test::Random(c.xs[i], &net.rng));
      }
      AttrMap attrs = {{"num_args", std::to_string(c.xs.size())}};
      if (c.spell_dim) attrs["dim"] = std::to_string(c.dim);
      net.g.Output(net.g.Op("Concat", "concat0", attrs, inputs));
      CompiledGraph op(net.g.ToJson(), net.params);
      REQUIRE(op.InputNames().size() == c.xs.size());
      const std::vector<Tensor> out = op.Run(xs);
      REQUIRE(out.size() == 1);
      ExpectClose(out[0], qv_ref::Concat(xs, c.dim), what);
    });
  }
}

TEST_CASE("Dropout, identity and _copy pass data through", "[ops]") {
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

// ------------------------------------------------------------------------------------------------------
// Graph rewrites: the fused graph must give the unfused answer.
// ------------------------------------------------------------------------------------------------------

TEST_CASE("Convolution -> BatchNorm (folded) and -> relu match the unfused reference", "[ops]") {
  struct Case {
    Shape x;
    int64_t filters;
    ConvParams p;
    bool conv_bias;
    bool fix_gamma;
    bool relu;
  };
  const std::vector<Case> cases = {
      {{1, 3, 7, 9}, 8, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1), false, false, false},
      {{3, 5, 7, 9}, 13, MakeConv(3, 3, 2, 2, 1, 1, 1, 1, 1), true, false, false},
      {{1, 3, 9, 7}, 16, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1), false, true, false},  // fix_gamma: gamma ignored
      {{3, 13, 7, 9}, 13, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 13), false, false, false},  // depthwise
      {{1, 3, 7, 9}, 8, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1), false, false, true},
      {{3, 5, 7, 9}, 13, MakeConv(1, 1, 1, 1, 0, 0, 1, 1, 1), true, true, true},
      {{1, 16, 9, 7}, 16, MakeConv(3, 3, 2, 2, 1, 1, 1, 1, 16), false, false, true},  // depthwise + relu
      {{3, 5, 11, 9}, 5, MakeConv(3, 3, 1, 1, 2, 2, 2, 2, 1), true, false, true},     // dilated
  };
  unsigned seed = 1200;
  for (const Case& c : cases) {
    const std::string what = "Convolution -> BatchNorm" + std::string(c.relu ? " -> relu" : "") + " x=" +
                             ShapeStr(c.x) + " filters=" + std::to_string(c.filters) + " " + Describe(c.p) +
                             (c.conv_bias ? " bias" : "") + (c.fix_gamma ? " fix_gamma" : " learned gamma");
    RunCase(what, [&] {
      Net net(seed++);
      const int data = net.g.Variable("data");
      const int conv = net.Conv("conv0", data, c.x[1], c.filters, c.p, c.conv_bias);
      const AttrMap bn_attrs = {{"eps", "1e-05"}, {"fix_gamma", c.fix_gamma ? "True" : "False"}};
      int head = net.BatchNorm("bn0", conv, c.filters, bn_attrs);
      if (c.relu) head = net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {head});
      net.g.Output(head);
      const Tensor x = qv_test::Random(c.x, &net.rng);
      Tensor want = net.RefBatchNorm("bn0", net.RefConv("conv0", x, c.p, c.conv_bias), 1e-5f, c.fix_gamma);
      if (c.relu) want = qv_ref::Activation(want, "relu");
      const std::vector<Tensor> out = RunSingleInput(net, x);
      REQUIRE(out.size() == 1);
      ExpectClose(out[0], want, what);
    });
  }
}

TEST_CASE("Convolution -> elemwise_add (residual) -> relu, both operand orders", "[ops]") {
  const std::vector<Shape> shapes = {{1, 5, 7, 9}, {3, 13, 8, 8}, {1, 16, 9, 7}};
  unsigned seed = 1300;
  for (const Shape& shape : shapes) {
    for (int conv_first = 0; conv_first < 2; ++conv_first) {
      for (int with_bn = 0; with_bn < 2; ++with_bn) {
        for (const std::string add_op : {"elemwise_add", "broadcast_add"}) {
          const std::string what = "residual x=" + ShapeStr(shape) + (with_bn ? " conv->bn" : " conv") +
                                   (conv_first ? " + shortcut" : " shortcut +") + " via " + add_op + " -> relu";
          RunCase(what, [&] {
            Net net(seed++);
            const ConvParams p = MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1);
            const int data = net.g.Variable("data");
            int branch = net.Conv("conv0", data, shape[1], shape[1], p, true);
            if (with_bn) branch = net.BatchNorm("bn0", branch, shape[1], {{"fix_gamma", "False"}});
            const int add = conv_first ? net.g.Op(add_op, "add0", {}, {branch, data})
                                       : net.g.Op(add_op, "add0", {}, {data, branch});
            net.g.Output(net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {add}));
            const Tensor x = qv_test::Random(shape, &net.rng);
            Tensor b = net.RefConv("conv0", x, p, true);
            if (with_bn) b = net.RefBatchNorm("bn0", b, 1e-3f, false);
            const Tensor want = qv_ref::Activation(conv_first ? qv_ref::BroadcastAdd(b, x) : qv_ref::BroadcastAdd(x, b),
                                                   "relu");
            const std::vector<Tensor> out = RunSingleInput(net, x);
            REQUIRE(out.size() == 1);
            ExpectClose(out[0], want, what);
          });
        }
      }
    }
  }

  // Two convolution branches (a ResNet projection block): conv1 -> bn1, conv2 -> bn2, add, relu.
  for (int order = 0; order < 2; ++order) {
    const std::string what = std::string("projection block, add order ") + (order ? "(proj, main)" : "(main, proj)");
    RunCase(what, [&] {
      Net net(1350 + order);
      const Shape shape = {3, 5, 9, 7};
      const ConvParams main_p = MakeConv(3, 3, 2, 2, 1, 1, 1, 1, 1), proj_p = MakeConv(1, 1, 2, 2, 0, 0, 1, 1, 1);
      const int data = net.g.Variable("data");
      const int main = net.BatchNorm("bn1", net.Conv("conv1", data, 5, 13, main_p, false), 13, {{"fix_gamma", "False"}});
      const int proj = net.BatchNorm("bn2", net.Conv("conv2", data, 5, 13, proj_p, false), 13, {{"fix_gamma", "False"}});
      const int add = order ? net.g.Op("elemwise_add", "add0", {}, {proj, main})
                            : net.g.Op("elemwise_add", "add0", {}, {main, proj});
      net.g.Output(net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {add}));
      const Tensor x = qv_test::Random(shape, &net.rng);
      const Tensor m = net.RefBatchNorm("bn1", net.RefConv("conv1", x, main_p, false), 1e-3f, false);
      const Tensor q = net.RefBatchNorm("bn2", net.RefConv("conv2", x, proj_p, false), 1e-3f, false);
      const Tensor want = qv_ref::Activation(qv_ref::BroadcastAdd(m, q), "relu");
      const std::vector<Tensor> out = RunSingleInput(net, x);
      REQUIRE(out.size() == 1);
      ExpectClose(out[0], want, what);
    });
  }
}

TEST_CASE("BatchNorm -> relu (pre-activation, ResNet v2) matches the reference", "[ops]") {
  const std::vector<Shape> shapes = {{1, 3, 7, 9}, {3, 13, 5, 5}, {3, 16, 4, 4}};
  unsigned seed = 1400;
  for (const Shape& shape : shapes) {
    for (int fix_gamma = 0; fix_gamma < 2; ++fix_gamma) {
      const std::string what = "BatchNorm -> relu -> Convolution x=" + ShapeStr(shape) + (fix_gamma ? " fix_gamma" : "");
      RunCase(what, [&] {
        Net net(seed++);
        const ConvParams p = MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1);
        const int data = net.g.Variable("data");
        const int bn = net.BatchNorm("bn0", data, shape[1], {{"fix_gamma", fix_gamma ? "True" : "False"}, {"eps", "2e-05"}});
        const int relu = net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {bn});
        const int conv = net.Conv("conv0", relu, shape[1], 8, p, false);
        // Both the activation and the convolution are outputs: the pre-activation is reused by the
        // shortcut in ResNet v2, so it must stay observable.
        net.g.Output(relu);
        net.g.Output(conv);
        const Tensor x = qv_test::Random(shape, &net.rng, -2.0f, 2.0f);
        const Tensor act = qv_ref::Activation(net.RefBatchNorm("bn0", x, 2e-5f, fix_gamma), "relu");
        const std::vector<Tensor> out = RunSingleInput(net, x);
        REQUIRE(out.size() == 2);
        ExpectClose(out[0], act, what + " [relu output]");
        ExpectClose(out[1], net.RefConv("conv0", act, p, false), what + " [conv output]");
      });
    }
  }
}

TEST_CASE("a Convolution that is a graph output and also feeds an add keeps both values", "[ops]") {
  for (int with_bn = 0; with_bn < 2; ++with_bn) {
    const std::string what = std::string("conv") + (with_bn ? "->bn" : "") + " as output and add operand";
    RunCase(what, [&] {
      Net net(1500 + with_bn);
      const Shape shape = {3, 5, 7, 9};
      const ConvParams p = MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1);
      const int data = net.g.Variable("data");
      const int conv = net.Conv("conv0", data, 5, 5, p, true);
      const int mid = with_bn ? net.BatchNorm("bn0", conv, 5, {{"fix_gamma", "False"}}) : conv;
      const int add = net.g.Op("elemwise_add", "add0", {}, {mid, data});
      const int relu = net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {add});
      net.g.Output(conv);
      net.g.Output(relu);
      if (with_bn) net.g.Output(mid);
      const Tensor x = qv_test::Random(shape, &net.rng);
      const Tensor c = net.RefConv("conv0", x, p, true);
      const Tensor m = with_bn ? net.RefBatchNorm("bn0", c, 1e-3f, false) : c;
      const std::vector<Tensor> out = RunSingleInput(net, x);
      REQUIRE(out.size() == (with_bn ? 3u : 2u));
      ExpectClose(out[0], c, what + " [conv output]");
      ExpectClose(out[1], qv_ref::Activation(qv_ref::BroadcastAdd(m, x), "relu"), what + " [relu output]");
      if (with_bn) ExpectClose(out[2], m, what + " [bn output]");
    });
  }
}

TEST_CASE("two Convolutions sharing one weight variable", "[ops]") {
  for (int bn_after_first = 0; bn_after_first < 2; ++bn_after_first) {
    const std::string what = std::string("shared weight") + (bn_after_first ? ", first conv followed by BatchNorm" : "");
    RunCase(what, [&] {
      Net net(1600 + bn_after_first);
      const Shape shape = {3, 5, 7, 9};
      const ConvParams p = MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1);
      net.Param("shared_weight", {5, 5, 3, 3}, -0.3f, 0.3f);
      const int data = net.g.Variable("data");
      const int w = net.g.Variable("shared_weight");
      int first = net.Conv("conv0", data, 5, 5, p, false, w);
      // Folding this BatchNorm into conv0's weights must not change what conv1 sees.
      if (bn_after_first) first = net.BatchNorm("bn0", first, 5, {{"fix_gamma", "False"}});
      const int relu = net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {first});
      const int second = net.Conv("conv1", relu, 5, 5, p, false, w);
      net.g.Output(first);
      net.g.Output(second);
      const Tensor x = qv_test::Random(shape, &net.rng);
      Tensor a = net.RefConv("conv0", x, p, false, "shared_weight");
      if (bn_after_first) a = net.RefBatchNorm("bn0", a, 1e-3f, false);
      const Tensor b = net.RefConv("conv1", qv_ref::Activation(a, "relu"), p, false, "shared_weight");
      const std::vector<Tensor> out = RunSingleInput(net, x);
      REQUIRE(out.size() == 2);
      ExpectClose(out[0], a, what + " [first]");
      ExpectClose(out[1], b, what + " [second]");
    });
  }
}

TEST_CASE("a graph output that is directly a data input", "[ops]") {
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

TEST_CASE("Dropout, identity and _copy in the middle and at the end of a graph", "[ops]") {
  RunCase("pass-through ops around conv/bn/relu", [&] {
    Net net(1800);
    const Shape shape = {3, 5, 7, 9};
    const ConvParams p = MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1);
    const int data = net.g.Variable("data");
    const int conv = net.Conv("conv0", data, 5, 8, p, false);
    const int drop = net.g.Op("Dropout", "drop0", {{"p", "0.5"}}, {conv});
    const int bn = net.BatchNorm("bn0", drop, 8, {{"fix_gamma", "False"}});
    const int copy = net.g.Op("_copy", "copy0", {}, {bn});
    const int relu = net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {copy});
    const int ident = net.g.Op("identity", "ident0", {}, {relu});
    net.g.Output(net.g.Op("Dropout", "drop1", {{"p", "0.2"}}, {ident}));
    const Tensor x = qv_test::Random(shape, &net.rng);
    const Tensor want =
        qv_ref::Activation(net.RefBatchNorm("bn0", net.RefConv("conv0", x, p, false), 1e-3f, false), "relu");
    const std::vector<Tensor> out = RunSingleInput(net, x);
    REQUIRE(out.size() == 1);
    ExpectClose(out[0], want, "pass-through ops");
  });
  RunCase("identity between a conv and its residual add, and two outputs through copies", [&] {
    Net net(1801);
    const Shape shape = {1, 5, 7, 9};
    const ConvParams p = MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1);
    const int data = net.g.Variable("data");
    const int conv = net.Conv("conv0", data, 5, 5, p, true);
    const int ident = net.g.Op("identity", "ident0", {}, {conv});
    const int add = net.g.Op("elemwise_add", "add0", {}, {ident, data});
    const int relu = net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {add});
    net.g.Output(net.g.Op("_copy", "copy0", {}, {relu}));
    net.g.Output(net.g.Op("_copy", "copy1", {}, {relu}));
    const Tensor x = qv_test::Random(shape, &net.rng);
    const Tensor want = qv_ref::Activation(qv_ref::BroadcastAdd(net.RefConv("conv0", x, p, true), x), "relu");
    const std::vector<Tensor> out = RunSingleInput(net, x);
    REQUIRE(out.size() == 2);
    ExpectClose(out[0], want, "copy0");
    ExpectClose(out[1], want, "copy1");
  });
}

TEST_CASE("one cached op run at batch 1, then 4, then 1 again gives each answer right", "[ops]") {
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

TEST_CASE("data inputs are the non-parameter variables, in graph order", "[ops]") {
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

TEST_CASE("fusion is skipped where an intermediate has other consumers or the activation is not relu", "[ops]") {
  const Shape shape = {3, 5, 7, 9};
  const ConvParams p = MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1);

  // conv0 feeds bn0 and, separately, relu1: folding bn0 into conv0 must not change relu1's input.
  RunCase("conv feeding BatchNorm and another branch", [&] {
    Net net(2100);
    const int data = net.g.Variable("data");
    const int conv = net.Conv("conv0", data, 5, 5, p, true);
    const int bn = net.BatchNorm("bn0", conv, 5, {{"fix_gamma", "False"}});
    const int relu1 = net.g.Op("Activation", "relu1", {{"act_type", "relu"}}, {conv});
    net.g.Output(net.g.Op("elemwise_add", "add0", {}, {bn, relu1}));
    const Tensor x = qv_test::Random(shape, &net.rng);
    const Tensor c = net.RefConv("conv0", x, p, true);
    const Tensor want = qv_ref::BroadcastAdd(net.RefBatchNorm("bn0", c, 1e-3f, false), qv_ref::Activation(c, "relu"));
    const std::vector<Tensor> out = RunSingleInput(net, x);
    REQUIRE(out.size() == 1);
    ExpectClose(out[0], want, "conv feeding BatchNorm and another branch");
  });

  // conv0 feeds relu0 and add0: fusing the relu into conv0 must not hand add0 the rectified values.
  RunCase("conv feeding relu and an add", [&] {
    Net net(2101);
    const int data = net.g.Variable("data");
    const int conv = net.Conv("conv0", data, 5, 5, p, false);
    const int relu = net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {conv});
    net.g.Output(net.g.Op("elemwise_add", "add0", {}, {relu, conv}));
    const Tensor x = qv_test::Random(shape, &net.rng);
    const Tensor c = net.RefConv("conv0", x, p, false);
    const std::vector<Tensor> out = RunSingleInput(net, x);
    REQUIRE(out.size() == 1);
    ExpectClose(out[0], qv_ref::BroadcastAdd(qv_ref::Activation(c, "relu"), c), "conv feeding relu and an add");
  });

  // bn0 -> relu0 where bn0 is also read by add0 (pre-activation block whose BN output is reused).
  RunCase("BatchNorm feeding relu and an add", [&] {
    Net net(2102);
    const int data = net.g.Variable("data");
    const int bn = net.BatchNorm("bn0", data, 5, {{"fix_gamma", "False"}});
    const int relu = net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {bn});
    net.g.Output(net.g.Op("elemwise_add", "add0", {}, {bn, relu}));
    const Tensor x = qv_test::Random(shape, &net.rng, -2.0f, 2.0f);
    const Tensor b = net.RefBatchNorm("bn0", x, 1e-3f, false);
    const std::vector<Tensor> out = RunSingleInput(net, x);
    REQUIRE(out.size() == 1);
    ExpectClose(out[0], qv_ref::BroadcastAdd(b, qv_ref::Activation(b, "relu")), "BatchNorm feeding relu and an add");
  });

  // Activations other than relu after conv, conv -> bn, and a residual add.
  for (const std::string act : {"sigmoid", "tanh", "softrelu", "softsign", "relu"}) {
    for (int form = 0; form < 3; ++form) {
      const char* const forms[] = {"conv -> ", "conv -> bn -> ", "conv + data -> "};
      const std::string what = std::string(forms[form]) + act;
      RunCase(what, [&] {
        Net net(2110 + static_cast<unsigned>(form));
        const int data = net.g.Variable("data");
        int head = net.Conv("conv0", data, 5, 5, p, true);
        if (form == 1) head = net.BatchNorm("bn0", head, 5, {{"fix_gamma", "False"}});
        if (form == 2) head = net.g.Op("elemwise_add", "add0", {}, {head, data});
        net.g.Output(net.g.Op("Activation", "act0", {{"act_type", act}}, {head}));
        const Tensor x = qv_test::Random(shape, &net.rng);
        Tensor want = net.RefConv("conv0", x, p, true);
        if (form == 1) want = net.RefBatchNorm("bn0", want, 1e-3f, false);
        if (form == 2) want = qv_ref::BroadcastAdd(want, x);
        want = qv_ref::Activation(want, act);
        const std::vector<Tensor> out = RunSingleInput(net, x);
        REQUIRE(out.size() == 1);
        ExpectClose(out[0], want, what);
      });
    }
  }

  // A residual add of a convolution with itself.
  RunCase("conv + conv (same node) -> relu", [&] {
    Net net(2120);
    const int data = net.g.Variable("data");
    const int conv = net.Conv("conv0", data, 5, 8, p, true);
    const int add = net.g.Op("elemwise_add", "add0", {}, {conv, conv});
    net.g.Output(net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {add}));
    const Tensor x = qv_test::Random(shape, &net.rng);
    const Tensor c = net.RefConv("conv0", x, p, true);
    const std::vector<Tensor> out = RunSingleInput(net, x);
    REQUIRE(out.size() == 1);
    ExpectClose(out[0], qv_ref::Activation(qv_ref::BroadcastAdd(c, c), "relu"), "conv + conv (same node) -> relu");
  });

  // FullyConnected -> relu, and BatchNorm after FullyConnected (2-D data).
  RunCase("FullyConnected -> BatchNorm -> relu", [&] {
    Net net(2130);
    net.Param("fc0_weight", {13, 5 * 7 * 9}, -0.05f, 0.05f);
    net.Param("fc0_bias", {13});
    const int data = net.g.Variable("data");
    const int fc = net.g.Op("FullyConnected", "fc0", {{"num_hidden", "13"}},
                            {data, net.g.Variable("fc0_weight"), net.g.Variable("fc0_bias")});
    const int bn = net.BatchNorm("bn0", fc, 13, {{"fix_gamma", "False"}});
    net.g.Output(net.g.Op("Activation", "relu0", {{"act_type", "relu"}}, {bn}));
    const Tensor x = qv_test::Random(shape, &net.rng);
    const Tensor f = qv_ref::FullyConnected(x, net.params.at("fc0_weight"), &net.params.at("fc0_bias"), true);
    const Tensor want = qv_ref::Activation(net.RefBatchNorm("bn0", f, 1e-3f, false), "relu");
    const std::vector<Tensor> out = RunSingleInput(net, x);
    REQUIRE(out.size() == 1);
    ExpectClose(out[0], want, "FullyConnected -> BatchNorm -> relu");
  });
}

TEST_CASE("a chain across blocked-layout channel counts: conv, pool, concat, add, softmax", "[ops]") {
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
