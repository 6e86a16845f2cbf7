// MXNet's cached-op functions over a Quiver cached op. MXNet takes the parameters as inputs of every
// invocation; Quiver binds (and folds) them once. The bridge: bind on the first invocation, and again
// only when different arrays, or arrays written since, come in the parameter positions.
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "cached_op_flags.h"
#include "errors.h"
#include "mx_abi.h"
#include "ndarray.h"
#include "quiver/c_api.h"
#include "symbol.h"

namespace mxc {
namespace {

// One Quiver op with the parameters it was compiled with. Shared by the invocations that use it,
// so a rebind never frees an op another thread is invoking.
struct Binding {
  QvCachedOpHandle op = nullptr;
  std::vector<uint64_t> param_ids, param_versions;
  std::vector<size_t> data_positions;  // per Quiver data input, its position among MXNet's inputs
  ~Binding() {
    if (op) QvFreeCachedOp(op);
  }
};

struct CachedOp {
  CachedOp(const Symbol& sym, const CachedOpFlags& f, bool ts)
      : json(sym.json), input_names(sym.all_inputs.names()), num_outputs(sym.outputs.names().size()), flags(f),
        thread_safe(ts) {}
  std::string json;
  std::vector<std::string> input_names;
  size_t num_outputs;
  CachedOpFlags flags;
  bool thread_safe;
  std::mutex mutex;  // guards `binding`
  std::shared_ptr<Binding> binding;
};

thread_local std::vector<NDArrayHandle> returned_outputs;
thread_local std::vector<int> returned_stypes;

std::string DeviceFlag(NDArray* a) {
  int type = 0, id = 0;
  CheckQv(QvNDArrayGetDevice(a->qv(), &type, &id), "reading an input's device");
  return type == QV_GPU ? "gpu(" + std::to_string(id) + ")" : "cpu(" + std::to_string(id) + ")";
}

std::shared_ptr<Binding> Bind(CachedOp& op, const std::vector<NDArray*>& inputs) {
  std::vector<uint64_t> ids, versions;
  for (size_t i : op.flags.param_indices) {
    ids.push_back(inputs[i]->id());
    versions.push_back(inputs[i]->version());
  }
  std::lock_guard<std::mutex> lock(op.mutex);
  if (op.binding && op.binding->param_ids == ids && op.binding->param_versions == versions) return op.binding;

  auto b = std::make_shared<Binding>();
  b->param_ids = ids;
  b->param_versions = versions;
  std::vector<const char*> names;
  std::vector<QvNDArrayHandle> params;
  for (size_t i : op.flags.param_indices) {
    names.push_back(op.input_names[i].c_str());
    params.push_back(inputs[i]->qv());
  }
  // MXNet runs a cached op where its inputs live.
  const std::string device = DeviceFlag(inputs[0]);
  std::vector<const char*> keys = {"device", "static_shape"};
  std::vector<const char*> vals = {device.c_str(), op.flags.static_shape ? "true" : "false"};
  for (const auto& [key, value] : op.flags.quiver) {
    keys.push_back(key.c_str());
    vals.push_back(value.c_str());
  }
  QvSymbolHandle sym = nullptr;
  CheckQv(QvSymbolCreateFromJSON(op.json.c_str(), &sym), "loading the symbol");
  const int status = QvCreateCachedOpEx(sym, static_cast<uint32_t>(params.size()), names.data(), params.data(),
                                        static_cast<int>(keys.size()), keys.data(), vals.data(), &b->op,
                                        op.thread_safe ? 1 : 0);
  QvSymbolFree(sym);
  // Quiver compiles weights in as constants, so it cannot take them as data inputs the way MXNet
  // does when no param_indices are given.
  CheckQv(status, op.flags.param_indices.empty()
                      ? "binding the cached op's parameters (none were named: create the op with the flag "
                        "param_indices listing the weight and auxiliary-state inputs)"
                      : "binding the cached op's parameters");

  uint32_t n = 0;
  const char** data_names = nullptr;
  CheckQv(QvCachedOpListInputs(b->op, &n, &data_names), "listing the cached op's inputs");
  const std::set<size_t> param_set(op.flags.param_indices.begin(), op.flags.param_indices.end());
  for (uint32_t k = 0; k < n; ++k) {
    size_t pos = op.input_names.size();
    for (size_t i = 0; i < op.input_names.size() && pos == op.input_names.size(); ++i)
      if (!param_set.count(i) && op.input_names[i] == data_names[k]) pos = i;
    Require(pos < op.input_names.size(), std::string("graph input '") + data_names[k] + "' has no value");
    b->data_positions.push_back(pos);
  }
  op.binding = b;
  return b;
}

CachedOp* OpFromHandle(void* handle) {
  Require(handle != nullptr, "CachedOp handle is NULL");
  return static_cast<CachedOp*>(handle);
}

}  // namespace
}  // namespace mxc

using mxc::Guarded;
using mxc::Require;

int MXCreateCachedOpEX(SymbolHandle handle, int num_flags, const char** keys, const char** vals, CachedOpHandle* out,
                       bool thread_safe) {
  return Guarded(__func__, [&] {
    mxc::Symbol* sym = mxc::SymbolFromHandle(handle);
    Require(out != nullptr, "out is NULL");
    const auto flags = mxc::ParseCachedOpFlags(num_flags, keys, vals, sym->all_inputs.names().size());
    *out = new mxc::CachedOp(*sym, flags, thread_safe);
  });
}

int MXCreateCachedOpEx(SymbolHandle handle, int num_flags, const char** keys, const char** vals,
                       CachedOpHandle* out) {
  return MXCreateCachedOpEX(handle, num_flags, keys, vals, out, false);
}

int MXCreateCachedOp(SymbolHandle handle, CachedOpHandle* out) {
  return MXCreateCachedOpEX(handle, 0, nullptr, nullptr, out, false);
}

int MXInvokeCachedOp(CachedOpHandle handle, int num_inputs, NDArrayHandle* inputs, int* num_outputs,
                     NDArrayHandle** outputs) {
  return Guarded(__func__, [&] {
    mxc::CachedOp* op = mxc::OpFromHandle(handle);
    Require(num_outputs && outputs, "num_outputs or outputs is NULL");
    Require(num_inputs >= 0 && static_cast<size_t>(num_inputs) == op->input_names.size(),
            "CachedOp expects " + std::to_string(op->input_names.size()) + " inputs (its symbol's list_inputs), " +
                std::to_string(num_inputs) + " given");
    Require(num_inputs == 0 || inputs != nullptr, "inputs is NULL");
    std::vector<mxc::NDArray*> in;
    for (int i = 0; i < num_inputs; ++i) in.push_back(mxc::FromHandle(inputs[i], "an input NDArray handle"));
    Require(!in.empty(), "a cached op needs at least one input");
    const auto binding = mxc::Bind(*op, in);

    std::vector<QvNDArrayHandle> data;
    for (size_t pos : binding->data_positions) data.push_back(in[pos]->qv());
    if (*outputs != nullptr) {
      Require(*num_outputs >= 0 && static_cast<size_t>(*num_outputs) == op->num_outputs,
              "CachedOp expects " + std::to_string(op->num_outputs) + " outputs, but " +
                  std::to_string(*num_outputs) + " was given.");
      std::vector<mxc::NDArray*> outs;
      std::vector<QvNDArrayHandle> qv_outs;
      for (int i = 0; i < *num_outputs; ++i) {
        outs.push_back(mxc::FromHandle((*outputs)[i], "an output NDArray handle"));
        qv_outs.push_back(outs.back()->qv());
      }
      uint32_t n = static_cast<uint32_t>(qv_outs.size());
      QvNDArrayHandle* ptr = qv_outs.data();
      mxc::CheckQv(QvInvokeAsync(binding->op, static_cast<uint32_t>(data.size()), data.data(), &n, &ptr),
                   "invoking the cached op");
      for (mxc::NDArray* o : outs) o->MarkWritten();
      return;
    }
    uint32_t n = 0;
    QvNDArrayHandle* produced = nullptr;
    mxc::CheckQv(QvInvokeAsync(binding->op, static_cast<uint32_t>(data.size()), data.data(), &n, &produced),
                 "invoking the cached op");
    // Copy out of Quiver's thread-local array before anything else can reuse it.
    std::vector<QvNDArrayHandle> owned(produced, produced + n);
    std::vector<NDArrayHandle>& ret = mxc::returned_outputs;
    ret.clear();
    for (size_t i = 0; i < owned.size(); ++i) {
      try {
        ret.push_back(new mxc::NDArray(owned[i]));
      } catch (...) {
        for (size_t j = i; j < owned.size(); ++j) QvNDArrayFree(owned[j]);
        for (NDArrayHandle h : ret) delete static_cast<mxc::NDArray*>(h);
        ret.clear();
        throw;
      }
    }
    *num_outputs = static_cast<int>(ret.size());
    *outputs = ret.data();
  });
}

int MXInvokeCachedOpEx(CachedOpHandle handle, int num_inputs, NDArrayHandle* inputs, int* num_outputs,
                       NDArrayHandle** outputs, const int** out_stypes) {
  if (MXInvokeCachedOp(handle, num_inputs, inputs, num_outputs, outputs) != 0) return -1;
  return Guarded(__func__, [&] {
    Require(out_stypes != nullptr, "out_stypes is NULL");
    // Every Quiver array is dense: MXNet's kDefaultStorage (0).
    mxc::returned_stypes.assign(static_cast<size_t>(*num_outputs), 0);
    *out_stypes = mxc::returned_stypes.data();
  });
}

int MXFreeCachedOp(CachedOpHandle handle) {
  return Guarded(__func__, [&] { delete mxc::OpFromHandle(handle); });
}
