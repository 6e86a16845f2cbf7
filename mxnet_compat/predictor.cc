// The predict API's model and handle over Quiver's cached op (see predictor.h).
#include "predictor.h"

#include <algorithm>
#include <set>

#include "errors.h"
#include "ndarray.h"
#include "symbol_graph.h"

namespace mxc {
namespace {

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + ")";
}

// Frees the arrays QvNDArrayLoadFromBuffer returned, whatever happens while they are used.
struct LoadedParams {
  ~LoadedParams() {
    for (QvNDArrayHandle a : arrays) QvNDArrayFree(a);
  }
  std::vector<QvNDArrayHandle> arrays;
  std::vector<std::string> names;
};

// MXNet takes "arg:NAME" for arguments and "aux:NAME" for auxiliary states that the symbol has and
// ignores the rest; unprefixed names (which MXNet would leave unset) are taken for any input too.
void SelectParams(const SymbolGraph& graph, const LoadedParams& loaded, const std::set<std::string>& input_keys,
                  std::vector<const char*>* names, std::vector<QvNDArrayHandle>* arrays) {
  const std::set<std::string> args(graph.arguments().begin(), graph.arguments().end());
  const std::set<std::string> aux(graph.aux_states().begin(), graph.aux_states().end());
  std::set<std::string> taken;
  for (size_t i = 0; i < loaded.names.size(); ++i) {
    const std::string& full = loaded.names[i];
    std::string name = full;
    bool wanted = false;
    if (full.compare(0, 4, "arg:") == 0) {
      name = full.substr(4);
      wanted = args.count(name) != 0;
    } else if (full.compare(0, 4, "aux:") == 0) {
      name = full.substr(4);
      wanted = aux.count(name) != 0;
    } else {
      wanted = args.count(name) != 0 || aux.count(name) != 0;
    }
    // An input key is data even when the file holds a value for it: SetInput overwrites it.
    if (!wanted || input_keys.count(name) || !taken.insert(name).second) continue;
    names->push_back(loaded.names[i].c_str());
    arrays->push_back(loaded.arrays[i]);
  }
}

std::string DeviceFlag(int dev_type, int dev_id) {
  Require(dev_type == QV_CPU || dev_type == QV_GPU,
          "dev_type must be 1 (cpu) or 2 (gpu), got " + std::to_string(dev_type));
  return (dev_type == QV_GPU ? "gpu(" : "cpu(") + std::to_string(dev_id) + ")";
}

}  // namespace

PredictorModel::~PredictorModel() {
  if (op) QvFreeCachedOp(op);
}

std::shared_ptr<PredictorModel> Predictor::Compile(const PredictorSpec& spec) {
  Require(spec.symbol_json != nullptr, "symbol_json_str is NULL");
  Require(spec.param_size >= 0 && (spec.param_bytes != nullptr || spec.param_size == 0),
          "param_bytes is NULL or param_size negative");
  SymbolGraph full(spec.symbol_json);
  std::string json = spec.symbol_json;
  if (!spec.output_keys.empty()) json = full.SelectOutputsJSON(spec.output_keys);
  const SymbolGraph graph = spec.output_keys.empty() ? full : SymbolGraph(json);

  LoadedParams loaded;
  if (spec.param_size > 0) {
    uint32_t n = 0, n_names = 0;
    QvNDArrayHandle* arrays = nullptr;
    const char** names = nullptr;
    CheckQv(QvNDArrayLoadFromBuffer(spec.param_bytes, static_cast<size_t>(spec.param_size), &n, &arrays, &n_names,
                                    &names),
            "reading the parameters");
    loaded.arrays.assign(arrays, arrays + n);
    loaded.names.assign(names, names + n_names);
    Require(n == n_names, "Invalid param file format: " + std::to_string(n) + " arrays but " +
                              std::to_string(n_names) + " names");
  }
  std::set<std::string> keys;
  for (const auto& kv : spec.input_shapes) keys.insert(kv.first);
  std::vector<const char*> param_names;
  std::vector<QvNDArrayHandle> params;
  SelectParams(graph, loaded, keys, &param_names, &params);

  // Compiling the plans for the given shapes now makes shape errors fail here, as in MXNet.
  std::string shapes;
  for (const auto& kv : spec.input_shapes) {
    if (std::find(graph.inputs().begin(), graph.inputs().end(), kv.first) == graph.inputs().end()) continue;
    shapes += (shapes.empty() ? "" : ";") + kv.first + ":" + ShapeText(kv.second);
  }
  const std::string device = DeviceFlag(spec.dev_type, spec.dev_id);
  const char* flag_keys[] = {"device", "data_shapes"};
  const char* flag_vals[] = {device.c_str(), shapes.c_str()};
  const int num_flags = shapes.empty() ? 1 : 2;

  auto model = std::make_shared<PredictorModel>();
  QvSymbolHandle sym = nullptr;
  CheckQv(QvSymbolCreateFromJSON(json.c_str(), &sym), "loading the symbol");
  if (!spec.output_keys.empty()) {
    uint32_t n = 0;
    const char** names = nullptr;
    int status = QvSymbolListOutputs(sym, &n, &names);
    for (uint32_t i = 0; status == QV_OK && i < n; ++i) {
      if (names[i] != spec.output_keys[i] + "_output") {
        QvSymbolFree(sym);
        throw Error("didn't find node name: " + spec.output_keys[i] + "_output");
      }
    }
  }
  const int status = QvCreateCachedOpEx(sym, static_cast<uint32_t>(params.size()), param_names.data(), params.data(),
                                        num_flags, flag_keys, flag_vals, &model->op, spec.thread_safe ? 1 : 0);
  QvSymbolFree(sym);
  CheckQv(status, "compiling the model");

  uint32_t n = 0;
  const char** data_names = nullptr;
  CheckQv(QvCachedOpListInputs(model->op, &n, &data_names), "listing the model's inputs");
  for (uint32_t i = 0; i < n; ++i) {
    const std::string name = data_names[i];
    // MXNet would run with an uninitialised array here; a clear error is more useful.
    Require(keys.count(name) != 0, "input '" + name + "' has no value: it is neither in the parameters nor among "
                                   "input_keys");
    model->data_names.push_back(name);
    auto dt = spec.arg_dtypes.find(name);
    model->dtypes[name] = dt == spec.arg_dtypes.end() ? QV_FLOAT32 : dt->second;
  }
  return model;
}

Predictor::Predictor(std::shared_ptr<PredictorModel> model, std::map<std::string, std::vector<int64_t>> shapes)
    : model_(std::move(model)), shapes_(std::move(shapes)) {
  try {
    for (const std::string& name : model_->data_names) {
      const auto& shape = shapes_.at(name);
      QvNDArrayHandle a = nullptr;
      CheckQv(QvNDArrayCreate(shape.data(), static_cast<uint32_t>(shape.size()), QV_CPU, 0, model_->dtypes[name], &a),
              "creating input '" + name + "' " + ShapeText(shape));
      inputs_.push_back(a);
    }
  } catch (...) {
    for (QvNDArrayHandle a : inputs_) QvNDArrayFree(a);
    throw;
  }
}

Predictor::~Predictor() {
  for (QvNDArrayHandle a : inputs_) QvNDArrayFree(a);
  for (QvNDArrayHandle a : outputs_) QvNDArrayFree(a);
}

std::unique_ptr<Predictor> Predictor::Reshape(const std::map<std::string, std::vector<int64_t>>& changes) const {
  auto shapes = shapes_;
  for (const auto& kv : changes) {
    const bool is_data = std::find(model_->data_names.begin(), model_->data_names.end(), kv.first) !=
                         model_->data_names.end();
    Require(is_data || shapes.count(kv.first) == 0 || shapes[kv.first] == kv.second,
            "arg " + kv.first + " shape has been changed, only allow to change the shape of input data.");
    shapes[kv.first] = kv.second;
  }
  auto next = std::make_unique<Predictor>(model_, shapes);
  // Inputs keep their values where their shape stays, as MXNet's reshaped predictor shares them.
  for (size_t i = 0; i < inputs_.size(); ++i) {
    const std::string& name = model_->data_names[i];
    if (shapes_.at(name) != shapes.at(name)) continue;
    std::vector<char> bytes;
    size_t count = 1;
    for (int64_t d : shapes.at(name)) count *= static_cast<size_t>(d);
    bytes.resize(count * DTypeSize(model_->dtypes.at(name)));
    CheckQv(QvNDArraySyncCopyToCPU(inputs_[i], bytes.data(), bytes.size()), "reading input '" + name + "'");
    CheckQv(QvNDArraySyncCopyFromCPU(next->inputs_[i], bytes.data(), bytes.size()), "copying input '" + name + "'");
  }
  next->Forward();
  for (QvNDArrayHandle out : next->outputs_) CheckQv(QvNDArrayWaitToRead(out), "running the reshaped model");
  return next;
}

void Predictor::SetInput(const std::string& key, const float* data, uint32_t size) {
  auto it = std::find(model_->data_names.begin(), model_->data_names.end(), key);
  Require(it != model_->data_names.end(), "cannot find input key " + key);
  const size_t i = static_cast<size_t>(it - model_->data_names.begin());
  size_t count = 1;
  for (int64_t d : shapes_.at(key)) count *= static_cast<size_t>(d);
  Require(data != nullptr, "data is NULL");
  Require(size == count, "input " + key + ": Memory size do not match: the input " + ShapeText(shapes_.at(key)) +
                             " holds " + std::to_string(count) + " elements, " + std::to_string(size) + " given");
  // As in MXNet, `data` holds `size` elements of the input's dtype (float32 unless MXPredCreateEx said).
  CheckQv(QvNDArraySyncCopyFromCPU(inputs_[i], data, count * DTypeSize(model_->dtypes.at(key))),
          "setting input " + key);
}

void Predictor::Forward() {
  if (!outputs_.empty()) {
    uint32_t n = static_cast<uint32_t>(outputs_.size());
    QvNDArrayHandle* out = outputs_.data();
    CheckQv(QvInvokeAsync(model_->op, static_cast<uint32_t>(inputs_.size()), inputs_.data(), &n, &out),
            "running the model");
    return;
  }
  uint32_t n = 0;
  QvNDArrayHandle* out = nullptr;
  CheckQv(QvInvokeAsync(model_->op, static_cast<uint32_t>(inputs_.size()), inputs_.data(), &n, &out),
          "running the model");
  outputs_.assign(out, out + n);
  for (QvNDArrayHandle a : outputs_) {
    uint32_t ndim = 0;
    const int64_t* shape = nullptr;
    CheckQv(QvNDArrayGetShape(a, &ndim, &shape), "reading an output's shape");
    output_shapes_.emplace_back(shape, shape + ndim);
  }
}

QvNDArrayHandle Predictor::Output(uint32_t index) {
  if (outputs_.empty()) Forward();
  Require(index < outputs_.size(), "Output index out of range: " + std::to_string(index) + " >= " +
                                       std::to_string(outputs_.size()) + " outputs");
  return outputs_[index];
}

const std::vector<uint32_t>& Predictor::OutputShape(uint32_t index) {
  Output(index);
  return output_shapes_[index];
}

int Predictor::OutputType(uint32_t index) {
  int dtype = 0;
  CheckQv(QvNDArrayGetDType(Output(index), &dtype), "reading an output's dtype");
  return dtype;
}

void Predictor::GetOutput(uint32_t index, float* data, uint32_t size) {
  QvNDArrayHandle out = Output(index);
  size_t count = 1;
  for (uint32_t d : output_shapes_[index]) count *= d;
  Require(data != nullptr, "data is NULL");
  Require(size == count, "output " + std::to_string(index) + ": Memory size do not match: it holds " +
                             std::to_string(count) + " elements, " + std::to_string(size) + " asked for");
  int dtype = 0;
  CheckQv(QvNDArrayGetDType(out, &dtype), "reading an output's dtype");
  CheckQv(QvNDArraySyncCopyToCPU(out, data, count * DTypeSize(dtype)), "running the model");
}

}  // namespace mxc
