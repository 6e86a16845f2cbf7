// Helpers shared by the operator tests (tests/engine/ops/) and the graph-level numeric tests
// (tests/engine/graph/, cachedop/, plan/). Each test builds an MXNet symbol graph, runs it through the
// public C API (support/single_op.h) and compares with a reference: the plain loops of
// support/reference_ops.h, or one written in the test itself.
// Tolerance: max |got - want| <= rel * max(1, max |want|), rel 1e-5 unless a test says otherwise; a
// failure prints the worst element.
#pragma once

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <exception>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "support/reference_ops.h"
#include "support/single_op.h"

namespace qv_op_test {

using qv_ref::ConvParams;
using qv_ref::PoolParams;
using qv_ref::Shape;
using qv_ref::Tensor;
using qv_test::AttrMap;
using qv_test::CompiledGraph;
using qv_test::GraphBuilder;
using qv_test::Tuple;

inline void ExpectClose(const Tensor& got, const Tensor& want, const std::string& what, double rel = 1e-5) {
  const qv_test::Comparison c = qv_test::Compare(got, want, rel);
  INFO(what << ": " << c.Describe(got, want));
  CHECK(c.ok());
}

// The outputs of graph `g` run once on `inputs` (data inputs in graph order).
inline std::vector<Tensor> Run(const GraphBuilder& g, const std::vector<Tensor>& inputs,
                               const std::map<std::string, Tensor>& params = {}) {
  qv_test::CompiledGraph net(g.ToJson(), params);
  return net.Run(inputs);
}

// data -> `op`(attrs) named "op0" -> output, run on x.
inline Tensor RunUnary(const std::string& op, const AttrMap& attrs, const Tensor& x) {
  GraphBuilder g;
  const int data = g.Variable("data");
  g.Output(g.Op(op, "op0", attrs, {data}));
  return Run(g, {x}).at(0);
}

// The error message of loading, compiling or running what `body` does; fails the test if it worked.
template <typename Body>
std::string FailureOf(Body&& body) {
  try {
    body();
  } catch (const std::exception& e) {
    return e.what();
  }
  FAIL_CHECK("expected a failure");
  return "";
}

// Expects the message to name the node and mention each of `words`.
inline void ExpectMessage(const std::string& message, const std::string& node, const std::vector<std::string>& words) {
  INFO("message: " << message);
  CHECK(message.find("'" + node + "'") != std::string::npos);
  for (const std::string& w : words) CHECK(message.find(w) != std::string::npos);
}

// Seeded uniform data in [lo, hi).
inline Tensor RandomTensor(const Shape& shape, unsigned seed, float lo = -3.f, float hi = 3.f) {
  std::mt19937 rng(seed);
  return qv_test::Random(shape, &rng, lo, hi);
}

// Row-major strides of a shape.
inline std::vector<int64_t> Strides(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (int d = static_cast<int>(s.size()) - 2; d >= 0; --d) st[d] = st[d + 1] * s[d + 1];
  return st;
}

// The multi-index of flat position i in shape s.
inline std::vector<int64_t> Unravel(int64_t i, const Shape& s) {
  std::vector<int64_t> idx(s.size());
  for (int d = static_cast<int>(s.size()) - 1; d >= 0; --d) {
    idx[d] = i % s[d];
    i /= s[d];
  }
  return idx;
}

inline std::string ShapeStr(const Shape& s) { return qv_ref::ShapeToString(s); }

// Runs one case; an exception (a failing C API call) fails this case only, so the others still run.
template <typename Body>
void RunCase(const std::string& what, Body&& body) {
  try {
    body();
  } catch (const std::exception& e) {
    FAIL_CHECK(what << ": " << e.what());
  }
}

// A graph under construction together with the parameter values it binds, and a seeded generator
// for its parameters and data.
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
  // `extra`: further attributes (int8 hints).
  int Conv(const std::string& name, int input, int64_t in_channels, int64_t filters, const ConvParams& p,
           bool bias, int weight_node = -1, const AttrMap& extra = {}) {
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
    AttrMap attrs = ConvAttrs(p, filters, bias);
    attrs.insert(extra.begin(), extra.end());
    return g.Op("Convolution", name, attrs, inputs);
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

inline ConvParams MakeConv(int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh,
                           int64_t dw, int64_t groups) {
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

inline std::string Describe(const ConvParams& p) {
  std::ostringstream os;
  os << "kernel " << Tuple({p.kernel_h, p.kernel_w}) << " stride " << Tuple({p.stride_h, p.stride_w}) << " pad "
     << Tuple({p.pad_h, p.pad_w}) << " dilate " << Tuple({p.dilate_h, p.dilate_w}) << " groups " << p.num_group;
  return os.str();
}

// Runs a single-data-input graph and returns its outputs, checking the data input list first.
inline std::vector<Tensor> RunSingleInput(const Net& net, const Tensor& x) {
  CompiledGraph op(net.g.ToJson(), net.params);
  const std::vector<std::string> inputs = op.InputNames();
  REQUIRE(inputs == std::vector<std::string>{"data"});
  return op.Run({x});
}

}  // namespace qv_op_test
