// A symbol as MXNet's API sees it: its JSON, with the name lists MXNet derives from the graph
// (arguments, auxiliary states, outputs) and the rewrites the API needs (internals, chosen outputs).
#ifndef QUIVER_MXNET_COMPAT_SYMBOL_GRAPH_H_
#define QUIVER_MXNET_COMPAT_SYMBOL_GRAPH_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mxc {

class SymbolGraph {
 public:
  // Parses MXNet symbol JSON (any 1.x layout); throws Error naming what is malformed.
  explicit SymbolGraph(const std::string& json);

  // Variables in MXNet's list_inputs order (depth-first from the outputs), and that list split into
  // arguments and auxiliary states (the BatchNorm moving statistics, which operators update).
  const std::vector<std::string>& inputs() const { return inputs_; }
  const std::vector<std::string>& arguments() const { return arguments_; }
  const std::vector<std::string>& aux_states() const { return aux_states_; }
  bool IsAux(const std::string& name) const;

  // The same graph whose outputs are every output of every node, as MXNet's GetInternals; with the
  // names MXNet gives them.
  std::string InternalsJSON(std::vector<std::string>* output_names) const;

  // The same graph whose outputs are output 0 of the operator nodes named `node_names`, in order;
  // throws naming a node that does not exist.
  std::string SelectOutputsJSON(const std::vector<std::string>& node_names) const;

 private:
  struct Entry {
    size_t node;
    size_t index;
  };
  std::vector<size_t> DepthFirstOrder() const;
  std::string WithHeads(const std::vector<Entry>& heads) const;

  nlohmann::json graph_;
  std::vector<std::string> inputs_, arguments_, aux_states_;
};

}  // namespace mxc

#endif  // QUIVER_MXNET_COMPAT_SYMBOL_GRAPH_H_
