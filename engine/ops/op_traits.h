// What the graph passes and the calibrator need to know about an operator, declared by the operator
// itself (OpDef::Traits) so that no pass keeps a list of operator names.
#pragma once

#include <string>
#include <vector>

namespace qv {

// MXNet 1.9.1's type of an output, as the integer-division pass tracks it (Quiver computes in float32).
enum class OutputDType {
  kFloating,      // not an integer type Quiver tracks: float32 here
  kOfInputs,      // the type of the inputs (an integer when every input is one)
  kOfFirstInput,  // the type of input 0 (reshape_like, gather_nd): the other inputs' types do not matter
  kInteger,       // an integer type whatever the inputs (shape_array, Cast to int32, topk's indices)
};

// How an operator moves data when it computes nothing (the constant-folding pass evaluates these).
enum class DataMovement {
  kCompute,    // computes values
  kSameOrder,  // the input's elements in the same order, another shape (Reshape, Flatten)
  kStrided,    // a window or a permutation of the input (ops/shape_ops.h's StridedRead)
  kJoin,       // its inputs' elements laid side by side (Concat, stack)
  kSplit,      // its input cut into parts, one an output (SliceChannel)
  kEnlarge,    // repeats its input's elements (tile, repeat, broadcasts): left to run time
};

// The activation an operator is, for the int8 calibrator's fusion rules.
enum class ActivationKind { kNone, kRelu, kClip };

struct OpTraits {
  // One rule for every output, or one per output.
  std::vector<OutputDType> output_dtypes = {OutputDType::kFloating};
  // On an integer tensor MXNet computes in its type: these attributes (a scalar, clip's bounds) are
  // converted to it first, which truncates them.
  std::vector<std::string> integer_attrs;
  // On integer operands MXNet's result is the quotient truncated towards zero (C++'s a / b).
  bool integer_quotient = false;
  // Element i of the output is computed from element i of each input, all of the output's shape.
  bool elementwise = false;
  DataMovement movement = DataMovement::kCompute;
  ActivationKind activation = ActivationKind::kNone;

  OutputDType OutputDTypeOf(size_t output) const {
    return output_dtypes.size() == 1 ? output_dtypes[0] : output_dtypes.at(output);
  }
};

// An operator that only moves its inputs' elements: MXNet keeps their type.
inline OpTraits MovesData(DataMovement how, OutputDType dtype = OutputDType::kOfInputs) {
  OpTraits t;
  t.output_dtypes = {dtype};
  t.movement = how;
  return t;
}

}  // namespace qv
