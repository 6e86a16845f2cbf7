// Graph building and C API plumbing for the operator tests (see single_op.h).
#include "support/single_op.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace qv_test {

using qv_ref::Shape;
using qv_ref::Tensor;

int GraphBuilder::Variable(const std::string& name) {
  nodes_.push_back({"null", name, {}, {}});
  return static_cast<int>(nodes_.size()) - 1;
}

int GraphBuilder::Op(const std::string& op, const std::string& name, const AttrMap& attrs,
                     const std::vector<Entry>& inputs) {
  for (const Entry& e : inputs)
    if (e.node < 0 || e.node >= static_cast<int>(nodes_.size()))
      throw std::invalid_argument("GraphBuilder: node '" + name + "' refers to a node not yet added");
  nodes_.push_back({op, name, attrs, inputs});
  return static_cast<int>(nodes_.size()) - 1;
}

void GraphBuilder::Output(Entry e) { heads_.push_back(e); }

std::string GraphBuilder::ToJson() const {
  nlohmann::json nodes = nlohmann::json::array(), arg_nodes = nlohmann::json::array();
  nlohmann::json heads = nlohmann::json::array();
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    nlohmann::json node = {{"op", n.op}, {"name", n.name}, {"inputs", nlohmann::json::array()}};
    if (!n.attrs.empty()) node["attrs"] = n.attrs;
    for (const Entry& e : n.inputs) node["inputs"].push_back({e.node, e.index, 0});
    nodes.push_back(node);
    if (n.op == "null") arg_nodes.push_back(i);
  }
  for (const Entry& e : heads_) heads.push_back({e.node, e.index, 0});
  nlohmann::json root = {{"nodes", nodes}, {"arg_nodes", arg_nodes}, {"heads", heads},
                         {"attrs", {{"mxnet_version", {"int", 10901}}}}};
  return root.dump();
}

void Check(int status, const char* call) {
  if (status == QV_OK) return;
  std::ostringstream os;
  os << call << " failed (status " << status << "): " << QvGetLastError();
  throw std::runtime_error(os.str());
}

Array& Array::operator=(Array&& o) noexcept {
  if (this != &o) {
    if (h_) QvNDArrayFree(h_);
    h_ = o.h_;
    o.h_ = nullptr;
  }
  return *this;
}

Array::~Array() {
  if (h_) QvNDArrayFree(h_);
}

Array Array::FromTensor(const Tensor& t, int device_type, int device_id) {
  QvNDArrayHandle h = nullptr;
  Check(QvNDArrayCreate(t.shape.data(), static_cast<uint32_t>(t.shape.size()), device_type, device_id, QV_FLOAT32, &h),
        "QvNDArrayCreate");
  Array a(h);
  Check(QvNDArraySyncCopyFromCPU(h, t.data.data(), t.data.size() * sizeof(float)), "QvNDArraySyncCopyFromCPU");
  return a;
}

Tensor Array::ToTensor() const {
  Check(QvNDArrayWaitToRead(h_), "QvNDArrayWaitToRead");
  uint32_t ndim = 0;
  const int64_t* dims = nullptr;
  Check(QvNDArrayGetShape(h_, &ndim, &dims), "QvNDArrayGetShape");
  int dtype = -1;
  Check(QvNDArrayGetDType(h_, &dtype), "QvNDArrayGetDType");
  if (dtype != QV_FLOAT32) throw std::runtime_error("output dtype is " + std::to_string(dtype) + ", not float32");
  Tensor t(Shape(dims, dims + ndim));
  Check(QvNDArraySyncCopyToCPU(h_, t.data.data(), t.data.size() * sizeof(float)), "QvNDArraySyncCopyToCPU");
  return t;
}

int CreateCachedOp(QvSymbolHandle sym, const std::map<std::string, Tensor>& params, const AttrMap& flags,
                   int thread_safe, QvCachedOpHandle* out) {
  std::vector<Array> arrays;
  std::vector<const char*> names;
  std::vector<QvNDArrayHandle> handles;
  for (const auto& kv : params) {
    arrays.push_back(Array::FromTensor(kv.second));
    names.push_back(kv.first.c_str());
    handles.push_back(arrays.back().get());
  }
  std::vector<const char*> keys, vals;
  for (const auto& kv : flags) {
    keys.push_back(kv.first.c_str());
    vals.push_back(kv.second.c_str());
  }
  // `arrays` go out of scope on return: the op must keep its own copy of the parameters.
  return QvCreateCachedOpEx(sym, static_cast<uint32_t>(names.size()), names.data(), handles.data(),
                            static_cast<int>(keys.size()), keys.data(), vals.data(), out, thread_safe);
}

CompiledGraph::CompiledGraph(const std::string& json, const std::map<std::string, Tensor>& params,
                             const AttrMap& flags) {
  Check(QvSymbolCreateFromJSON(json.c_str(), &sym_), "QvSymbolCreateFromJSON");
  const int status = CreateCachedOp(sym_, params, flags, /*thread_safe=*/1, &op_);
  if (status != QV_OK) {
    const std::string message = QvGetLastError();  // before QvSymbolFree can touch it
    QvSymbolFree(sym_);
    sym_ = nullptr;
    throw std::runtime_error("QvCreateCachedOpEx failed (status " + std::to_string(status) + "): " + message);
  }
}

CompiledGraph::~CompiledGraph() {
  if (op_) QvFreeCachedOp(op_);
  if (sym_) QvSymbolFree(sym_);
}

std::vector<std::string> CompiledGraph::InputNames() const {
  uint32_t n = 0;
  const char** names = nullptr;
  Check(QvCachedOpListInputs(op_, &n, &names), "QvCachedOpListInputs");
  return std::vector<std::string>(names, names + n);
}

std::vector<std::string> CompiledGraph::OutputNames() const {
  uint32_t n = 0;
  const char** names = nullptr;
  Check(QvCachedOpListOutputs(op_, &n, &names), "QvCachedOpListOutputs");
  return std::vector<std::string>(names, names + n);
}

std::vector<Tensor> CompiledGraph::Run(const std::vector<Tensor>& inputs, int device_type, int device_id) const {
  std::vector<Array> in_arrays;
  std::vector<QvNDArrayHandle> in_handles;
  for (const Tensor& t : inputs) {
    in_arrays.push_back(Array::FromTensor(t, device_type, device_id));
    in_handles.push_back(in_arrays.back().get());
  }
  uint32_t num_outputs = 0;
  QvNDArrayHandle* out_handles = nullptr;
  Check(QvInvokeAsync(op_, static_cast<uint32_t>(in_handles.size()), in_handles.data(), &num_outputs, &out_handles),
        "QvInvokeAsync");
  // Take ownership of every output before anything can throw.
  std::vector<Array> outputs;
  for (uint32_t i = 0; i < num_outputs; ++i) outputs.emplace_back(out_handles[i]);
  std::vector<Tensor> result;
  for (const Array& a : outputs) result.push_back(a.ToTensor());
  return result;
}

std::string ProfiledKernel(const CompiledGraph& op, const std::vector<Tensor>& inputs, const std::string& node,
                           std::vector<Tensor>* outputs) {
  Check(QvProfilerClear(), "QvProfilerClear");
  Check(QvProfilerStart(), "QvProfilerStart");
  *outputs = op.Run(inputs);
  Check(QvProfilerStop(), "QvProfilerStop");
  const char* text = nullptr;
  Check(QvProfilerGetTrace(&text), "QvProfilerGetTrace");
  std::string kernel;
  const nlohmann::json trace = nlohmann::json::parse(text);
  for (const auto& e : trace.at("traceEvents"))
    if (e.value("name", "") == node && e.value("cat", "") == "operator") kernel = e.at("args").value("kernel", "");
  Check(QvProfilerClear(), "QvProfilerClear");
  return kernel;
}

Tensor Random(const Shape& shape, std::mt19937* rng, float lo, float hi) {
  std::uniform_real_distribution<float> dist(lo, hi);
  Tensor t(shape);
  for (float& v : t.data) v = dist(*rng);
  return t;
}

Comparison Compare(const Tensor& got, const Tensor& want, double rel) {
  Comparison c;
  c.shapes_match = got.shape == want.shape && got.data.size() == want.data.size();
  double biggest = 0;
  for (float v : want.data)
    if (std::isfinite(v)) biggest = std::max(biggest, static_cast<double>(std::fabs(v)));
  c.bound = rel * std::max(1.0, biggest);
  if (!c.shapes_match) return c;
  for (size_t i = 0; i < want.data.size(); ++i) {
    const double g = got.data[i], w = want.data[i];
    double err;
    if (std::isnan(w) || std::isnan(g)) {
      err = std::isnan(w) && std::isnan(g) ? 0.0 : std::numeric_limits<double>::infinity();
    } else if (std::isinf(w) || std::isinf(g)) {
      err = g == w ? 0.0 : std::numeric_limits<double>::infinity();
    } else {
      err = std::fabs(g - w);
    }
    if (err > c.worst || c.worst_at < 0) {
      c.worst = err;
      c.worst_at = static_cast<int64_t>(i);
    }
  }
  return c;
}

std::string Comparison::Describe(const Tensor& got, const Tensor& want) const {
  std::ostringstream os;
  os.precision(9);
  if (!shapes_match) {
    os << "shape mismatch: got " << qv_ref::ShapeToString(got.shape) << ", want " << qv_ref::ShapeToString(want.shape);
    return os.str();
  }
  os << "max abs error " << worst << " (bound " << bound << ")";
  if (worst_at >= 0) {
    // Unflatten the index for a readable location.
    Shape where(want.shape.size());
    int64_t rem = worst_at;
    for (size_t i = want.shape.size(); i-- > 0;) {
      where[i] = want.shape[i] ? rem % want.shape[i] : 0;
      rem = want.shape[i] ? rem / want.shape[i] : 0;
    }
    os << " at " << qv_ref::ShapeToString(where) << ": got " << got.data[worst_at] << ", want "
       << want.data[worst_at];
  }
  return os.str();
}

std::string Tuple(std::initializer_list<int64_t> values) {
  std::ostringstream os;
  os << "(";
  bool first = true;
  for (int64_t v : values) {
    os << (first ? "" : ", ") << v;
    first = false;
  }
  os << ")";
  return os.str();
}

}  // namespace qv_test
