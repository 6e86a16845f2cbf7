// Helpers for the operator tests: build a small MXNet symbol JSON graph in code, compile it through the
// public C API and run it on qv_ref::Tensor data. Only quiver/c_api.h is used, never engine headers, so
// these tests see the runtime exactly as a binding does.
//
// Typical use:
//   qv_test::GraphBuilder g;
//   int data = g.Variable("data"), w = g.Variable("conv0_weight");
//   g.Output(g.Op("Convolution", "conv0", {{"kernel", "(3, 3)"}, {"num_filter", "8"}, {"no_bias", "True"}},
//                 {data, w}));
//   qv_test::CompiledGraph net(g.ToJson(), {{"conv0_weight", weight}});
//   std::vector<qv_ref::Tensor> out = net.Run({x});
//
// Every failure of a C API call throws std::runtime_error carrying the call and QvGetLastError(), which
// Catch2 reports as a test failure with that message.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "quiver/c_api.h"
#include "support/reference_ops.h"

namespace qv_test {

// One input of a node: (node id, output index).
struct Entry {
  int node;
  int index = 0;
  Entry(int n) : node(n) {}  // NOLINT: a bare node id means its output 0
  Entry(int n, int i) : node(n), index(i) {}
};

using AttrMap = std::map<std::string, std::string>;

// Builds an MXNet 1.x symbol JSON ("nodes" with "attrs", [node, index, 0] entries, "arg_nodes", "heads").
class GraphBuilder {
 public:
  // A variable ("null" op). Returns its node id.
  int Variable(const std::string& name);
  // An operator node over earlier nodes. Returns its node id.
  int Op(const std::string& op, const std::string& name, const AttrMap& attrs, const std::vector<Entry>& inputs);
  // Appends a graph output.
  void Output(Entry e);
  std::string ToJson() const;

 private:
  struct Node {
    std::string op, name;
    AttrMap attrs;
    std::vector<Entry> inputs;
  };
  std::vector<Node> nodes_;
  std::vector<Entry> heads_;
};

// Throws std::runtime_error("<call> failed (status N): <QvGetLastError()>") unless status is QV_OK.
void Check(int status, const char* call);

// An owned QvNDArrayHandle (freed on destruction).
class Array {
 public:
  Array() = default;
  explicit Array(QvNDArrayHandle h) : h_(h) {}
  Array(const Array&) = delete;
  Array& operator=(const Array&) = delete;
  Array(Array&& o) noexcept : h_(o.h_) { o.h_ = nullptr; }
  Array& operator=(Array&& o) noexcept;
  ~Array();
  QvNDArrayHandle get() const { return h_; }

  // A new float32 array holding t's values, on the CPU or (device_type QV_GPU) on gpu(device_id).
  static Array FromTensor(const qv_ref::Tensor& t, int device_type = QV_CPU, int device_id = 0);
  // Waits for the array and copies it out.
  qv_ref::Tensor ToTensor() const;

 private:
  QvNDArrayHandle h_ = nullptr;
};

// QvCreateCachedOpEx over `sym`, with these parameters (made on the CPU) and flags. Returns its status.
int CreateCachedOp(QvSymbolHandle sym, const std::map<std::string, qv_ref::Tensor>& params, const AttrMap& flags,
                   int thread_safe, QvCachedOpHandle* out);

// A symbol compiled into a thread-safe cached op (on the CPU unless flags name a device), with its
// parameters bound.
class CompiledGraph {
 public:
  CompiledGraph(const std::string& json, const std::map<std::string, qv_ref::Tensor>& params,
                const AttrMap& flags = {});
  CompiledGraph(const CompiledGraph&) = delete;
  CompiledGraph& operator=(const CompiledGraph&) = delete;
  ~CompiledGraph();

  std::vector<std::string> InputNames() const;
  std::vector<std::string> OutputNames() const;
  // Invokes once with these data inputs (in InputNames() order, made on device `device_type`,
  // `device_id`: the op's device) and returns every output.
  std::vector<qv_ref::Tensor> Run(const std::vector<qv_ref::Tensor>& inputs, int device_type = QV_CPU,
                                  int device_id = 0) const;

 private:
  QvSymbolHandle sym_ = nullptr;
  QvCachedOpHandle op_ = nullptr;
};

// The kernel the profiler names for operator node `node` (its trace's "kernel" argument) while `op`
// runs once on `inputs`; the run's outputs go to `outputs`. Leaves the profiler stopped and cleared.
std::string ProfiledKernel(const CompiledGraph& op, const std::vector<qv_ref::Tensor>& inputs, const std::string& node,
                           std::vector<qv_ref::Tensor>* outputs);

// Seeded uniform data in [lo, hi).
qv_ref::Tensor Random(const qv_ref::Shape& shape, std::mt19937* rng, float lo = -1.0f, float hi = 1.0f);

// The largest |got - want| and the bound it must stay within, 1e-5 * max(1, max|want|).
struct Comparison {
  bool shapes_match = false;
  double worst = 0;
  int64_t worst_at = -1;  // flat index of the worst element
  double bound = 0;
  bool ok() const { return shapes_match && worst <= bound; }
  std::string Describe(const qv_ref::Tensor& got, const qv_ref::Tensor& want) const;
};
Comparison Compare(const qv_ref::Tensor& got, const qv_ref::Tensor& want, double rel = 1e-5);

// Formats an MXNet tuple attribute: Tuple({3, 3}) == "(3, 3)".
std::string Tuple(std::initializer_list<int64_t> values);

}  // namespace qv_test
