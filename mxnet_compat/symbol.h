// What an MXNet SymbolHandle points at in the drop-in.
#ifndef QUIVER_MXNET_COMPAT_SYMBOL_H_
#define QUIVER_MXNET_COMPAT_SYMBOL_H_

#include <string>
#include <vector>

#include "symbol_graph.h"

namespace mxc {

// Name lists as C string arrays that stay valid while the owner lives (MXNet keeps them per
// thread; per symbol is at least as long and needs no thread-local state).
class NameList {
 public:
  NameList() = default;
  explicit NameList(std::vector<std::string> names);
  NameList(const NameList& other) : NameList(other.names_) {}
  NameList& operator=(const NameList& other);
  const std::vector<std::string>& names() const { return names_; }
  void Return(uint32_t* out_size, const char*** out_array);

 private:
  std::vector<std::string> names_;
  std::vector<const char*> ptrs_;
};

struct Symbol {
  // Parses and checks `json` with Quiver's loader too, so unsupported operators fail here as in MXNet.
  // `output_names`, when given, overrides the names Quiver reports (internals name every output).
  explicit Symbol(const std::string& json, const std::vector<std::string>* output_names = nullptr);

  std::string json;
  SymbolGraph graph;
  NameList all_inputs, arguments, aux_states, outputs;
};

Symbol* SymbolFromHandle(void* handle);

}  // namespace mxc

#endif  // QUIVER_MXNET_COMPAT_SYMBOL_H_
