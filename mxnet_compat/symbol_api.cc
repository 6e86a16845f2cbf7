// The symbol functions of MXNet's c_api.h and nnvm's NNSymbolListInputNames.
#include <fstream>
#include <sstream>

#include "errors.h"
#include "mx_abi.h"
#include "quiver/c_api.h"
#include "symbol.h"

namespace mxc {

NameList::NameList(std::vector<std::string> names) : names_(std::move(names)) {
  for (const auto& n : names_) ptrs_.push_back(n.c_str());
}

NameList& NameList::operator=(const NameList& other) {
  names_ = other.names_;
  ptrs_.clear();
  for (const auto& n : names_) ptrs_.push_back(n.c_str());
  return *this;
}

void NameList::Return(uint32_t* out_size, const char*** out_array) {
  Require(out_size && out_array, "a pointer argument is NULL");
  *out_size = static_cast<uint32_t>(names_.size());
  *out_array = ptrs_.data();
}

Symbol::Symbol(const std::string& text, const std::vector<std::string>* output_names)
    : json(text),
      graph(text),
      all_inputs(graph.inputs()),
      arguments(graph.arguments()),
      aux_states(graph.aux_states()) {
  if (output_names) {
    outputs = NameList(*output_names);
    return;
  }
  QvSymbolHandle qv = nullptr;
  CheckQv(QvSymbolCreateFromJSON(text.c_str(), &qv), "loading the symbol");
  uint32_t n = 0;
  const char** names = nullptr;
  const int status = QvSymbolListOutputs(qv, &n, &names);
  std::vector<std::string> list;
  if (status == QV_OK) list.assign(names, names + n);
  QvSymbolFree(qv);
  CheckQv(status, "listing the symbol's outputs");
  outputs = NameList(std::move(list));
}

Symbol* SymbolFromHandle(void* handle) {
  Require(handle != nullptr, "Symbol handle is NULL");
  return static_cast<Symbol*>(handle);
}

}  // namespace mxc

using mxc::Guarded;
using mxc::Require;
using mxc::SymbolFromHandle;

int MXSymbolCreateFromJSON(const char* json, SymbolHandle* out) {
  return Guarded(__func__, [&] {
    Require(json && out, "a pointer argument is NULL");
    *out = new mxc::Symbol(json);
  });
}

int MXSymbolCreateFromFile(const char* fname, SymbolHandle* out) {
  return Guarded(__func__, [&] {
    Require(fname && out, "a pointer argument is NULL");
    std::ifstream in(fname, std::ios::binary);
    Require(in.good(), std::string("cannot open symbol file '") + fname + "'");
    std::stringstream text;
    text << in.rdbuf();
    try {
      *out = new mxc::Symbol(text.str());
    } catch (const std::exception& e) {
      throw mxc::Error(std::string("'") + fname + "': " + e.what());
    }
  });
}

int MXSymbolListArguments(SymbolHandle symbol, uint32_t* out_size, const char*** out_str_array) {
  return Guarded(__func__, [&] { SymbolFromHandle(symbol)->arguments.Return(out_size, out_str_array); });
}

int MXSymbolListAuxiliaryStates(SymbolHandle symbol, uint32_t* out_size, const char*** out_str_array) {
  return Guarded(__func__, [&] { SymbolFromHandle(symbol)->aux_states.Return(out_size, out_str_array); });
}

int MXSymbolListOutputs(SymbolHandle symbol, uint32_t* out_size, const char*** out_str_array) {
  return Guarded(__func__, [&] { SymbolFromHandle(symbol)->outputs.Return(out_size, out_str_array); });
}

int MXSymbolGetInternals(SymbolHandle symbol, SymbolHandle* out) {
  return Guarded(__func__, [&] {
    Require(out != nullptr, "out is NULL");
    std::vector<std::string> names;
    const std::string json = SymbolFromHandle(symbol)->graph.InternalsJSON(&names);
    *out = new mxc::Symbol(json, &names);
  });
}

int MXSymbolFree(SymbolHandle symbol) {
  return Guarded(__func__, [&] { delete SymbolFromHandle(symbol); });
}

// option: 0 every input, 1 the arguments (read-only inputs), 2 the auxiliary states, as nnvm's enum.
int NNSymbolListInputNames(SymbolHandle symbol, int option, uint32_t* out_size, const char*** out_str_array) {
  return Guarded(__func__, [&] {
    mxc::Symbol* s = SymbolFromHandle(symbol);
    Require(option >= 0 && option <= 2, "option must be 0 (all), 1 (arguments) or 2 (auxiliary states), got " +
                                            std::to_string(option));
    mxc::NameList& list = option == 0 ? s->all_inputs : option == 1 ? s->arguments : s->aux_states;
    list.Return(out_size, out_str_array);
  });
}
