// Graph construction and shape inference through the engine's own entry points (the C API adds only
// argument checks on top), so that every stage from parsing to running kernels sees fuzzed graphs.
#include <map>
#include <vector>

#include "cachedop/cached_op.h"
#include "fuzz/fuzz_checks.h"
#include "fuzz/fuzz_targets.h"
#include "graph/graph_check.h"
#include "graph/symbol_json.h"
#include "handles.h"
#include "ops/attrs.h"

namespace quiver_fuzz {
namespace {

// Arrays stay this small so that each input runs in milliseconds; larger ones are skipped.
constexpr int64_t kMaxElements = 1 << 14;

// MXNet's parameter names end like this; every other variable is a data input.
bool LooksLikeParameter(const std::string& name) {
  static const char* const kSuffixes[] = {"weight", "bias", "gamma", "beta", "moving_mean", "moving_var", "alpha"};
  for (const char* suffix : kSuffixes) {
    const std::string s(suffix);
    if (name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) return true;
  }
  return false;
}

// The variable's "__shape__" with unknown (0 or negative) dimensions, or the whole shape when there is
// none, taken from the control bytes: small, so that most graphs get to run.
qv::Shape VariableShape(const qv::Node& var, const uint8_t* control, size_t* next) {
  const auto pick = [&](int range) { return 1 + control[(*next)++ % kShapeControlBytes] % range; };
  std::vector<int64_t> declared;
  try {
    declared = qv::Attrs(var.attrs, var.op, var.name).GetTuple("__shape__", {});
  } catch (const qv::Error&) {
    declared.clear();  // an unreadable hint: treat the shape as unknown
  }
  if (declared.empty() || declared.size() > 6) declared.assign(pick(4), 0);
  for (int64_t& d : declared)
    if (d <= 0) d = pick(8);
  return declared;
}

std::string CheckError(const char* stage, const qv::Error& e) {
  return CheckFailure(stage, qv::capi::ToQvStatus(e.status()), e.what(),
                      {QV_ERR_PARSE, QV_ERR_UNSUPPORTED, QV_ERR_SHAPE, QV_ERR_NOT_FOUND, QV_ERR_OUT_OF_MEMORY,
                       QV_ERR_INVALID_ARGUMENT});
}

std::string BuildAndRun(const std::string& json, const uint8_t* control) {
  qv::Graph graph;
  try {
    graph = qv::ParseSymbolJson(json);
    qv::AddImplicitAuxiliaryStates(graph);
    qv::CheckGraphOperators(graph);
  } catch (const qv::Error& e) {
    return CheckError("loading the symbol", e);
  }
  size_t next = 0;
  std::map<std::string, qv::NDArrayPtr> params;
  std::map<std::string, qv::Shape> data_shapes;
  for (int id : qv::ListVariables(graph)) {
    const qv::Node& var = graph.nodes[id];
    const qv::Shape shape = VariableShape(var, control, &next);
    if (qv::ElementCount(shape) > kMaxElements) return "";
    if (LooksLikeParameter(var.name)) {
      qv::NDArrayPtr array = qv::NDArray::Create(shape, qv::DType::kFloat32);
      float* values = array->data_as<float>();
      for (int64_t i = 0; i < array->size(); ++i) values[i] = 0.25f * static_cast<float>(i % 7 + 1);
      params[var.name] = array;
    } else {
      data_shapes[var.name] = shape;
    }
  }
  std::shared_ptr<qv::CachedOp> op;
  std::vector<qv::NDArrayPtr> inputs, outputs;
  try {
    op = qv::CachedOp::Create(graph, params, qv::CachedOpOptions{});
    for (const std::string& name : op->input_names()) {
      auto it = data_shapes.find(name);
      if (it == data_shapes.end()) return "the op lists a data input '" + name + "' the graph does not have";
      inputs.push_back(qv::NDArray::Create(it->second, qv::DType::kFloat32));
    }
    op->Invoke(inputs, &outputs);
  } catch (const qv::Error& e) {
    return CheckError("compiling the graph", e);
  }
  for (const qv::NDArrayPtr& out : outputs) {
    const qv::Failure f = qv::Engine::Get().WaitToRead(out->var());
    if (!f.ok()) return CheckFailure("running the graph", qv::capi::ToQvStatus(f.status), f.message, {QV_ERR_OUT_OF_MEMORY});
  }
  return "";
}

}  // namespace

std::string FuzzGraphShapes(const uint8_t* data, size_t size) {
  if (size < kShapeControlBytes) return "";
  const uint8_t* control = data + size - kShapeControlBytes;
  const std::string json(reinterpret_cast<const char*>(data), size - kShapeControlBytes);
  try {
    return BuildAndRun(json, control);
  } catch (const qv::Error& e) {
    return CheckError("preparing the graph's arrays", e);
  } catch (const std::exception& e) {
    return std::string("an exception other than qv::Error escaped: ") + e.what();
  }
}

}  // namespace quiver_fuzz
