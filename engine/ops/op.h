// The operator registry: per operator, its inputs, attribute checks, shape inference and traits (what
// the graph passes ask about it). Kernels live with the backends (backends/cpu), keyed by the same
// names; operator families (ops/op_families.h) let a backend register one kernel for a whole family.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ops/attrs.h"
#include "ops/op_traits.h"
#include "tensor/tensor_type.h"

namespace qv {

class OpDef {
 public:
  virtual ~OpDef() = default;

  // Names of the inputs for these attributes ("data", "weight", ...); the node must have this many.
  virtual std::vector<std::string> InputNames(const Attrs&) const { return {"data"}; }
  // Inputs that inference never reads (SoftmaxOutput's label): dropped from the graph.
  virtual std::vector<int> UnusedInputs(const Attrs&) const { return {}; }
  // Inputs that must be bound to parameters at creation (weights, biases, statistics).
  virtual std::vector<int> ParamInputs(const Attrs&) const { return {}; }
  // Parameter inputs that kernels read only in a layout of their own, packed once: where no other
  // node reads such a parameter, the op keeps the packed copy alone.
  virtual std::vector<int> PackedInputs(const Attrs&) const { return {}; }
  virtual int NumOutputs(const Attrs&) const { return 1; }
  // Checks parameter shapes that the attributes alone determine (nullptr: input is not a parameter).
  virtual void CheckParams(const Attrs&, const std::vector<const Shape*>& /*param_shapes*/) const {}
  // Output types from input types; throws Error(Status::kShape) naming the node and the input.
  virtual std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const = 0;
  // What the passes ask about this node (attrs.op() tells the members of one definition apart);
  // reads only attributes with defaults, never throws.
  virtual OpTraits Traits(const Attrs&) const { return {}; }
};

// nullptr if no operator has this canonical name (graphs are canonicalised when loaded).
const OpDef* FindOp(const std::string& name);
// The canonical name of an operator MXNet spells several ways ("_Plus" -> "elemwise_add"); any other
// name, unknown ones included, is returned as it is.
std::string CanonicalOpName(const std::string& name);
// Every canonical operator name, sorted.
std::vector<std::string> ListOps();
// Every alias with its canonical name.
std::vector<std::pair<std::string, std::string>> ListAliases();

// One operator: its canonical name and the other names MXNet writes it under.
struct OpNames {
  const char* name;
  std::vector<const char*> aliases = {};
};
// The canonical names of a family registered together.
std::vector<std::string> NamesOf(const std::vector<OpNames>& family);

// Registers at static-initialisation time, one definition for one or several operators:
// `const OpRegistrar kRegister({{"Concat", {"concat"}}}, new ConcatOp);`
struct OpRegistrar {
  OpRegistrar(const std::vector<OpNames>& ops, const OpDef* op);
};

// Shared shape checks, throwing Error(Status::kShape) with attrs.Where().
void ExpectInputs(const Attrs& attrs, const std::vector<TensorType>& in, size_t n);
void ExpectNdim(const Attrs& attrs, const TensorType& t, const char* input, size_t ndim);
void ExpectFloat32(const Attrs& attrs, const std::vector<TensorType>& in);
void ExpectParamShape(const Attrs& attrs, const char* input, const Shape& actual, const Shape& expected);

}  // namespace qv
