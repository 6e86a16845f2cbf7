// Every operator's OpTraits, held to MXNet 1.9.1 and to the passes that read them: what an operator
// says about integer types agrees with MXNet's type inference (tests/engine/ops/mxnet_integer_types.tsv,
// made by make_integer_types.py with real MXNet), an integer tensor stays one through every operator
// that says it keeps its inputs' type, and the traits a pass relies on hang together.
#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <sstream>

#include "graph/bound_graph.h"
#include "ops/op.h"
#include "ops/op_families.h"

namespace {

using qv::OutputDType;

struct TypedOp {
  std::string op;
  int inputs = 0;
  std::map<std::string, std::string> attrs;
  std::vector<std::string> mxnet_types;  // MXNet's output types with every input int32
};

std::vector<std::string> Split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, sep);)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

std::vector<TypedOp> MxnetTypes() {
  std::ifstream in(QUIVER_SOURCE_DIR "/tests/engine/ops/mxnet_integer_types.tsv");
  REQUIRE(in.good());
  std::vector<TypedOp> ops;
  std::set<std::string> listed;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cols;
    std::stringstream row(line);
    for (std::string col; std::getline(row, col, '\t');) cols.push_back(col);
    REQUIRE(cols.size() == 4);
    listed.insert(cols[0]);
    if (cols[3] == "untyped") continue;  // MXNet cannot type it with int32 inputs
    TypedOp t{cols[0], std::stoi(cols[1]), {}, Split(cols[3], ',')};
    for (const std::string& kv : Split(cols[2], ' ')) t.attrs[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
    ops.push_back(t);
  }
  for (const std::string& op : qv::ListOps()) {
    INFO("operator " << op << " is missing: regenerate the table with tests/engine/ops/make_integer_types.py");
    CHECK(listed.count(op) == 1);
  }
  return ops;
}

bool IsIntegerType(const std::string& t) { return t == "int8" || t == "uint8" || t == "int32" || t == "int64"; }

// With every input an integer, whether output `o` is one by the operator's rule.
bool KeepsInteger(const qv::OpTraits& t, size_t o) { return t.OutputDTypeOf(o) != OutputDType::kFloating; }

}  // namespace

TEST_CASE("every operator's integer rule agrees with MXNet 1.9.1's type inference", "[ops][traits]") {
  const std::vector<TypedOp> typed = MxnetTypes();
  CHECK(typed.size() > 120);  // the table covers the registry, not a sample of it
  int integer_rules = 0;
  for (const TypedOp& t : typed) {
    INFO("operator " << t.op << " (regenerate the table with tests/engine/ops/make_integer_types.py)");
    const qv::OpDef* def = qv::FindOp(t.op);
    REQUIRE(def != nullptr);
    const qv::Attrs attrs(t.attrs, t.op, "node");
    const qv::OpTraits traits = def->Traits(attrs);
    REQUIRE(static_cast<int>(t.mxnet_types.size()) == def->NumOutputs(attrs));
    for (size_t o = 0; o < t.mxnet_types.size(); ++o) {
      // Quiver may treat as floating what MXNet types as an integer (it computes in float32 and cannot
      // give exp or mean of integers MXNet's truncated results), never the other way round.
      if (KeepsInteger(traits, o)) {
        CHECK(IsIntegerType(t.mxnet_types[o]));
        ++integer_rules;
      }
    }
  }
  CHECK(integer_rules > 60);
}

TEST_CASE("an int32 tensor stays an integer through every operator that keeps its inputs' type", "[ops][traits]") {
  // int32 inputs -> op -> each output divided by an int32 tensor: the integer-division pass truncates
  // exactly the divisions of outputs the operator's rule keeps integer.
  for (const TypedOp& t : MxnetTypes()) {
    INFO("operator " << t.op);
    qv::BoundGraph g;
    auto add = [&](const std::string& op, const std::string& name, std::map<std::string, std::string> attrs,
                   std::vector<qv::NodeEntry> inputs) {
      qv::Node n;
      n.op = op;
      n.name = name;
      n.attrs = std::move(attrs);
      n.inputs = std::move(inputs);
      g.graph.nodes.push_back(n);
      return static_cast<int>(g.graph.nodes.size()) - 1;
    };
    std::vector<qv::NodeEntry> inputs;
    for (int i = 0; i < t.inputs; ++i)
      inputs.push_back({add("null", "in" + std::to_string(i), {{"__dtype__", "4"}}, {}), 0});
    const int divisor = add("null", "divisor", {{"__dtype__", "4"}}, {});
    const int node = add(t.op, "op", t.attrs, inputs);
    const qv::Attrs attrs(t.attrs, t.op, "node");
    const qv::OpDef* def = qv::FindOp(t.op);
    const qv::OpTraits traits = def->Traits(attrs);
    std::vector<int> divisions;
    for (int o = 0; o < def->NumOutputs(attrs); ++o) {
      divisions.push_back(add("broadcast_div", "div" + std::to_string(o), {}, {{node, o}, {divisor, 0}}));
      g.graph.outputs.push_back({divisions.back(), 0});
    }
    qv::TruncateIntegerDivisions(g);
    for (size_t o = 0; o < divisions.size(); ++o) {
      const qv::NodeEntry out = g.graph.outputs[o];
      const bool truncated = g.graph.nodes[out.node].op == "trunc" &&
                             g.graph.nodes[out.node].inputs.at(0).node == divisions[o];
      CHECK(truncated == KeepsInteger(traits, o));
    }
  }
}

TEST_CASE("operators that only move data keep their inputs' type; families are registered", "[ops][traits]") {
  const std::map<std::string, std::string> none;
  for (const std::string& op : qv::ListOps()) {
    INFO("operator " << op);
    const qv::OpTraits t = qv::FindOp(op)->Traits(qv::Attrs(none, op, "node"));
    // A data-movement operator that forgot its type rule would end integer tensors silently.
    if (t.movement != qv::DataMovement::kCompute) CHECK(KeepsInteger(t, 0));
    // Attributes truncated and quotients truncated only mean something where integers are kept.
    if (!t.integer_attrs.empty() || t.integer_quotient) CHECK(KeepsInteger(t, 0));
    if (t.activation != qv::ActivationKind::kNone) CHECK(t.elementwise);
  }
  for (const auto* family : {&qv::BinaryOps(), &qv::UnaryMathOps(), &qv::ScalarArithOps(), &qv::ReduceOps()}) {
    CHECK_FALSE(family->empty());
    for (const std::string& op : *family) CHECK(qv::FindOp(op) != nullptr);
  }
  CHECK(qv::BinaryOps().size() == 28);
}
