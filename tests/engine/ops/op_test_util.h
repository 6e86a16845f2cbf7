// Helpers shared by the per-operator tests in this folder. Each test builds an MXNet symbol graph,
// runs it through the public C API (support/single_op.h) and compares with a reference written in
// the test itself.
#pragma once

#include <catch2/catch.hpp>
#include <exception>
#include <map>
#include <string>
#include <vector>

#include "support/reference_ops.h"
#include "support/single_op.h"

namespace qv_op_test {

using qv_ref::Shape;
using qv_ref::Tensor;
using qv_test::AttrMap;
using qv_test::GraphBuilder;

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

}  // namespace qv_op_test
