#include "support/tiny_model.h"

#include <cctype>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace quiver_test {
namespace {

[[noreturn]] void Fail(const std::string& what, int status) {
  throw std::runtime_error(what + " failed with status " + std::to_string(status) + ": " + QvGetLastError());
}

void Check(int status, const std::string& what) {
  if (status != QV_OK) Fail(what, status);
}

// Writes nodes in the MXNet 1.x layout and tracks the indices needed for entries and node_row_ptr.
class SymbolWriter {
 public:
  int Variable(const std::string& name) {
    nodes_.push_back("{\"op\": \"null\", \"name\": \"" + name + "\", \"inputs\": []}");
    arg_nodes_.push_back(static_cast<int>(nodes_.size()) - 1);
    return Finish(1);
  }

  int Op(const std::string& op, const std::string& name, const Flags& attrs, const std::vector<int>& inputs,
         int num_outputs = 1) {
    std::string node = "{\"op\": \"" + op + "\", \"name\": \"" + name + "\", \"attrs\": {";
    for (size_t i = 0; i < attrs.size(); ++i) {
      if (i) node += ", ";
      node += "\"" + attrs[i].first + "\": \"" + attrs[i].second + "\"";
    }
    node += "}, \"inputs\": [";
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (i) node += ", ";
      node += "[" + std::to_string(inputs[i]) + ", 0, 0]";
    }
    nodes_.push_back(node + "]}");
    return Finish(num_outputs);
  }

  std::string Json(int head) const {
    std::string out = "{\n  \"nodes\": [\n";
    for (size_t i = 0; i < nodes_.size(); ++i) out += "    " + nodes_[i] + (i + 1 < nodes_.size() ? ",\n" : "\n");
    out += "  ],\n  \"arg_nodes\": " + List(arg_nodes_) + ",\n";
    out += "  \"node_row_ptr\": " + List(row_ptr_) + ",\n";
    out += "  \"heads\": [[" + std::to_string(head) + ", 0, 0]],\n";
    out += "  \"attrs\": {\"mxnet_version\": [\"int\", 10901]}\n}\n";
    return out;
  }

 private:
  int Finish(int num_outputs) {
    row_ptr_.push_back(row_ptr_.back() + num_outputs);
    return static_cast<int>(nodes_.size()) - 1;
  }

  static std::string List(const std::vector<int>& values) {
    std::string out = "[";
    for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
    return out + "]";
  }

  std::vector<std::string> nodes_;
  std::vector<int> arg_nodes_;
  std::vector<int> row_ptr_{0};
};

int ConvBlock(SymbolWriter& w, const std::string& conv, const std::string& bn, int input) {
  const int weight = w.Variable(conv + "_weight");
  const int bias = w.Variable(conv + "_bias");
  const int c = w.Op("Convolution", conv, {{"kernel", "(3, 3)"}, {"num_filter", "8"}, {"pad", "(1, 1)"}},
                     {input, weight, bias});
  const int gamma = w.Variable(bn + "_gamma");
  const int beta = w.Variable(bn + "_beta");
  const int mean = w.Variable(bn + "_moving_mean");
  const int var = w.Variable(bn + "_moving_var");
  // MXNet's BatchNorm has three outputs (data, mean, var); only the first is used at inference.
  return w.Op("BatchNorm", bn, {{"eps", "1e-05"}, {"fix_gamma", "False"}, {"momentum", "0.9"}},
              {c, gamma, beta, mean, var}, 3);
}

// xorshift32: small, fast and identical everywhere.
class Rng {
 public:
  explicit Rng(uint32_t seed) : state_(seed ? seed : 0x9e3779b9u) {}
  float Uniform(float lo, float hi) {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 17;
    state_ ^= state_ << 5;
    return lo + (hi - lo) * static_cast<float>(state_ >> 8) / 16777216.0f;
  }

 private:
  uint32_t state_;
};

}  // namespace

std::string TinyModelJson() {
  SymbolWriter w;
  const int data = w.Variable("data");
  const int bn0 = ConvBlock(w, "conv0", "bn0", data);
  const int relu0 = w.Op("Activation", "relu0", {{"act_type", "relu"}}, {bn0});
  const int bn1 = ConvBlock(w, "conv1", "bn1", relu0);
  const int add0 = w.Op("elemwise_add", "add0", {}, {bn1, relu0});
  const int relu1 = w.Op("relu", "relu1", {}, {add0});
  const int pool0 =
      w.Op("Pooling", "pool0", {{"global_pool", "True"}, {"kernel", "(1, 1)"}, {"pool_type", "avg"}}, {relu1});
  const int flat = w.Op("Flatten", "flatten0", {}, {pool0});
  const int fc_weight = w.Variable("fc0_weight");
  const int fc_bias = w.Variable("fc0_bias");
  const int fc = w.Op("FullyConnected", "fc0", {{"num_hidden", std::to_string(kTinyClasses)}}, {flat, fc_weight, fc_bias});
  const int softmax = w.Op("softmax", "softmax0", {{"axis", "-1"}}, {fc});
  return w.Json(softmax);
}

std::vector<ParamSpec> TinyParamSpecs() {
  std::vector<ParamSpec> specs;
  const int64_t in_channels[2] = {kTinyInChannels, 8};
  for (int block = 0; block < 2; ++block) {
    const std::string conv = "conv" + std::to_string(block);
    const std::string bn = "bn" + std::to_string(block);
    specs.push_back({"arg:" + conv + "_weight", {8, in_channels[block], 3, 3}});
    specs.push_back({"arg:" + conv + "_bias", {8}});
    specs.push_back({"arg:" + bn + "_gamma", {8}});
    specs.push_back({"arg:" + bn + "_beta", {8}});
    specs.push_back({"aux:" + bn + "_moving_mean", {8}});
    specs.push_back({"aux:" + bn + "_moving_var", {8}});
  }
  specs.push_back({"arg:fc0_weight", {kTinyClasses, 8}});
  specs.push_back({"arg:fc0_bias", {kTinyClasses}});
  return specs;
}

TinyParams::TinyParams(TinyParams&& other) noexcept
    : names_(std::move(other.names_)), arrays_(std::move(other.arrays_)) {
  other.names_.clear();
  other.arrays_.clear();
}

TinyParams& TinyParams::operator=(TinyParams&& other) noexcept {
  if (this != &other) {
    Clear();
    names_ = std::move(other.names_);
    arrays_ = std::move(other.arrays_);
    other.names_.clear();
    other.arrays_.clear();
  }
  return *this;
}

TinyParams::~TinyParams() { Clear(); }

void TinyParams::Clear() {
  FreeArrays(arrays_);
  names_.clear();
  name_ptrs_.clear();
}

void TinyParams::Add(std::string name, QvNDArrayHandle array) {
  names_.push_back(std::move(name));
  arrays_.push_back(array);
}

bool TinyParams::Remove(const std::string& name) {
  for (size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] != name) continue;
    QvNDArrayFree(arrays_[i]);
    names_.erase(names_.begin() + static_cast<std::ptrdiff_t>(i));
    arrays_.erase(arrays_.begin() + static_cast<std::ptrdiff_t>(i));
    return true;
  }
  return false;
}

void TinyParams::Reshape(const std::string& name, const std::vector<int64_t>& shape, uint32_t seed) {
  if (!Remove(name)) throw std::runtime_error("no parameter named " + name);
  Add(name, MakeRandomArray(shape, seed));
}

const char** TinyParams::names() {
  name_ptrs_.clear();
  for (const auto& n : names_) name_ptrs_.push_back(n.c_str());
  return name_ptrs_.data();
}

TinyParams MakeTinyParams(uint32_t seed) {
  TinyParams params;
  uint32_t index = 0;
  for (const ParamSpec& spec : TinyParamSpecs()) {
    const uint32_t s = seed * 131u + ++index;
    QvNDArrayHandle array = nullptr;
    Check(QvNDArrayCreate(spec.shape.data(), static_cast<uint32_t>(spec.shape.size()), QV_CPU, 0, QV_FLOAT32, &array),
          "QvNDArrayCreate(" + spec.name + ")");
    params.Add(spec.name, array);
    size_t count = 1;
    for (int64_t d : spec.shape) count *= static_cast<size_t>(d);
    std::vector<float> values;
    if (spec.name.find("moving_var") != std::string::npos || spec.name.find("gamma") != std::string::npos)
      values = RandomFloats(count, s, 0.5f, 1.5f);
    else if (spec.name.find("weight") != std::string::npos)
      values = RandomFloats(count, s, -0.4f, 0.4f);
    else
      values = RandomFloats(count, s, -0.1f, 0.1f);
    Check(QvNDArraySyncCopyFromCPU(array, values.data(), values.size() * sizeof(float)),
          "QvNDArraySyncCopyFromCPU(" + spec.name + ")");
  }
  return params;
}

int TryCreateCachedOp(const std::string& json, TinyParams& params, const Flags& flags, int thread_safe,
                      QvCachedOpHandle* out) {
  *out = nullptr;
  QvSymbolHandle sym = nullptr;
  int status = QvSymbolCreateFromJSON(json.c_str(), &sym);
  if (status != QV_OK) return status;
  std::vector<const char*> keys, vals;
  for (const auto& kv : flags) {
    keys.push_back(kv.first.c_str());
    vals.push_back(kv.second.c_str());
  }
  status = QvCreateCachedOpEx(sym, params.size(), params.names(), params.arrays(), static_cast<int>(flags.size()),
                              keys.data(), vals.data(), out, thread_safe);
  // The failure message must survive the (successful) symbol free.
  QvSymbolFree(sym);
  if (status != QV_OK) *out = nullptr;
  return status;
}

QvCachedOpHandle CreateTinyModel(int thread_safe, const Flags& flags, uint32_t seed) {
  TinyParams params = MakeTinyParams(seed);
  QvCachedOpHandle op = nullptr;
  Check(TryCreateCachedOp(TinyModelJson(), params, flags, thread_safe, &op), "QvCreateCachedOpEx(tiny model)");
  return op;
}

void FreeTinyModel(QvCachedOpHandle op) {
  if (op) QvFreeCachedOp(op);
}

std::vector<float> RandomFloats(size_t count, uint32_t seed, float lo, float hi) {
  Rng rng(seed * 2654435761u + 1);
  std::vector<float> out(count);
  for (float& v : out) v = rng.Uniform(lo, hi);
  return out;
}

QvNDArrayHandle MakeArray(const std::vector<int64_t>& shape, int dtype) {
  QvNDArrayHandle array = nullptr;
  Check(QvNDArrayCreate(shape.data(), static_cast<uint32_t>(shape.size()), QV_CPU, 0, dtype, &array),
        "QvNDArrayCreate");
  return array;
}

QvNDArrayHandle MakeRandomArray(const std::vector<int64_t>& shape, uint32_t seed) {
  QvNDArrayHandle array = MakeArray(shape, QV_FLOAT32);
  size_t count = 1;
  for (int64_t d : shape) count *= static_cast<size_t>(d);
  const std::vector<float> values = RandomFloats(count, seed);
  const int status = QvNDArraySyncCopyFromCPU(array, values.data(), values.size() * sizeof(float));
  if (status != QV_OK) {
    const std::string message = QvGetLastError();
    QvNDArrayFree(array);
    throw std::runtime_error("QvNDArraySyncCopyFromCPU failed with status " + std::to_string(status) + ": " + message);
  }
  return array;
}

size_t ElementCount(QvNDArrayHandle array) {
  uint32_t ndim = 0;
  const int64_t* shape = nullptr;
  Check(QvNDArrayGetShape(array, &ndim, &shape), "QvNDArrayGetShape");
  size_t count = 1;
  for (uint32_t i = 0; i < ndim; ++i) count *= static_cast<size_t>(shape[i]);
  return count;
}

std::vector<float> ReadFloats(QvNDArrayHandle array) {
  std::vector<float> out(ElementCount(array));
  Check(QvNDArraySyncCopyToCPU(array, out.data(), out.size() * sizeof(float)), "QvNDArraySyncCopyToCPU");
  return out;
}

std::vector<float> RunSync(QvCachedOpHandle op, QvNDArrayHandle input) {
  uint32_t num_outputs = 0;
  QvNDArrayHandle* outputs = nullptr;
  Check(QvInvokeAsync(op, 1, &input, &num_outputs, &outputs), "QvInvokeAsync");
  std::vector<QvNDArrayHandle> owned(outputs, outputs + num_outputs);
  if (num_outputs != 1) {
    FreeArrays(owned);
    throw std::runtime_error("the tiny model returned " + std::to_string(num_outputs) + " outputs, expected 1");
  }
  try {
    std::vector<float> result = ReadFloats(owned[0]);
    FreeArrays(owned);
    return result;
  } catch (...) {
    FreeArrays(owned);
    throw;
  }
}

void FreeArrays(std::vector<QvNDArrayHandle>& arrays) {
  for (QvNDArrayHandle a : arrays)
    if (a) QvNDArrayFree(a);
  arrays.clear();
}

std::pair<uint64_t, uint64_t> MemoryStats() {
  uint64_t bytes = 0, arrays = 0;
  Check(QvGetMemoryStats(&bytes, &arrays), "QvGetMemoryStats");
  return {bytes, arrays};
}

std::pair<uint64_t, uint64_t> SettledMemoryStats() {
  QvWaitAll();
  auto previous = MemoryStats();
  for (int i = 0; i < 200; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const auto now = MemoryStats();
    if (now == previous) return now;
    previous = now;
  }
  return previous;
}

const char* StatusName(int status) {
  switch (status) {
    case QV_OK: return "QV_OK";
    case QV_ERR_INVALID_ARGUMENT: return "QV_ERR_INVALID_ARGUMENT";
    case QV_ERR_NOT_FOUND: return "QV_ERR_NOT_FOUND";
    case QV_ERR_PARSE: return "QV_ERR_PARSE";
    case QV_ERR_SHAPE: return "QV_ERR_SHAPE";
    case QV_ERR_UNSUPPORTED: return "QV_ERR_UNSUPPORTED";
    case QV_ERR_BUSY: return "QV_ERR_BUSY";
    case QV_ERR_OUT_OF_MEMORY: return "QV_ERR_OUT_OF_MEMORY";
    case QV_ERR_DEVICE: return "QV_ERR_DEVICE";
    case QV_ERR_INTERNAL: return "QV_ERR_INTERNAL";
    case QV_ERR_CANCELLED: return "QV_ERR_CANCELLED";
    case QV_ERR_DEADLINE_EXCEEDED: return "QV_ERR_DEADLINE_EXCEEDED";
    default: return "(not a QvStatus)";
  }
}

bool ContainsNoCase(const std::string& haystack, const std::string& needle) {
  auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  return lower(haystack).find(lower(needle)) != std::string::npos;
}

}  // namespace quiver_test
