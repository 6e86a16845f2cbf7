// The operator registry: per operator, its inputs, attribute checks and shape inference. Kernels live
// with the backends (backends/cpu), keyed by the same names.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/dtype.h"
#include "common/shape.h"
#include "ops/attrs.h"

namespace qv {

struct TensorType {
  Shape shape;
  DType dtype = DType::kFloat32;
};

class OpDef {
 public:
  virtual ~OpDef() = default;

  // Names of the inputs for these attributes ("data", "weight", ...); the node must have this many.
  virtual std::vector<std::string> InputNames(const Attrs&) const { return {"data"}; }
  // Inputs that inference never reads (SoftmaxOutput's label): dropped from the graph.
  virtual std::vector<int> UnusedInputs(const Attrs&) const { return {}; }
  // Inputs that must be bound to parameters at creation (weights, biases, statistics).
  virtual std::vector<int> ParamInputs(const Attrs&) const { return {}; }
  virtual int NumOutputs(const Attrs&) const { return 1; }
  // Checks parameter shapes that the attributes alone determine (nullptr: input is not a parameter).
  virtual void CheckParams(const Attrs&, const std::vector<const Shape*>& /*param_shapes*/) const {}
  // Output types from input types; throws Error(QV_ERR_SHAPE) naming the node and the input.
  virtual std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const = 0;
};

// nullptr if no operator has this name.
const OpDef* FindOp(const std::string& name);
// Every registered operator name, sorted.
std::vector<std::string> ListOps();

// Registers at static-initialisation time: `static OpRegistrar reg("Convolution", new ConvolutionOp);`
struct OpRegistrar {
  OpRegistrar(std::initializer_list<const char*> names, const OpDef* op);
};

// Shared shape checks, throwing Error(QV_ERR_SHAPE) with attrs.Where().
void ExpectInputs(const Attrs& attrs, const std::vector<TensorType>& in, size_t n);
void ExpectNdim(const Attrs& attrs, const TensorType& t, const char* input, size_t ndim);
void ExpectFloat32(const Attrs& attrs, const std::vector<TensorType>& in);
void ExpectParamShape(const Attrs& attrs, const char* input, const Shape& actual, const Shape& expected);

}  // namespace qv
