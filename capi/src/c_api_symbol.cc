// Symbols: parsed and operator-checked graphs.
#include "graph/graph_check.h"
#include "graph/symbol_json.h"
#include "handles.h"

using namespace qv;

namespace {

QvSymbolHandle MakeSymbol(Graph graph) {
  AddImplicitAuxiliaryStates(graph);
  CheckGraphOperators(graph);
  auto s = std::make_shared<QvSymbol_>();
  s->graph = std::move(graph);
  for (int id : ListVariables(s->graph)) s->input_names.push_back(s->graph.nodes[id].name);
  s->output_names = ListOutputNames(s->graph);
  s->inputs = capi::NameList(s->input_names);
  s->outputs = capi::NameList(s->output_names);
  return capi::Symbols().Add(std::move(s));
}

}  // namespace

extern "C" {

int QvSymbolCreateFromFile(const char* path, QvSymbolHandle* out) {
  return capi::Guard([&] {
    capi::Require(path, "path");
    capi::Require(out, "out");
    *out = MakeSymbol(LoadSymbolJsonFile(path));
  });
}

int QvSymbolCreateFromJSON(const char* json, QvSymbolHandle* out) {
  return capi::Guard([&] {
    capi::Require(json, "json");
    capi::Require(out, "out");
    *out = MakeSymbol(ParseSymbolJson(json));
  });
}

int QvSymbolListInputs(QvSymbolHandle s, uint32_t* n, const char*** names) {
  return capi::Guard([&] {
    capi::Symbols().Get(s, "symbol")->inputs.Publish(n, names);
  });
}

int QvSymbolListOutputs(QvSymbolHandle s, uint32_t* n, const char*** names) {
  return capi::Guard([&] {
    capi::Symbols().Get(s, "symbol")->outputs.Publish(n, names);
  });
}

int QvSymbolFree(QvSymbolHandle s) {
  return capi::Guard([&] { capi::Symbols().Free(s, "symbol"); });
}

}  // extern "C"
