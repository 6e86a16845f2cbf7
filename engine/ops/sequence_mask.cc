// SequenceMask(use_sequence_length=False, value=0, axis=0): data (seq, batch, ...) for axis 0 or
// (batch, seq, ...) for axis 1, and a length per batch entry; positions at or past a sequence's
// length become `value`. Without use_sequence_length it is the identity.
#include "common/error.h"
#include "ops/sequence_inputs.h"
#include "ops/transformer_ops.h"

namespace qv {

SequenceMaskGeometry ResolveSequenceMask(const Attrs& attrs, const Shape& x) {
  Check(x.size() >= 2, Status::kShape, attrs.Where() + "data must have at least 2 dimensions, got " + ShapeToString(x));
  SequenceMaskGeometry g;
  const int64_t axis = attrs.GetInt("axis", 0);
  Check(axis == 0 || axis == 1, Status::kParse,
        attrs.Where() + "axis must be 0 or 1 (as in MXNet), got " + std::to_string(axis));
  g.axis = static_cast<int>(axis);
  g.seq = x[axis];
  g.batch = x[1 - axis];
  for (size_t d = 2; d < x.size(); ++d) g.rest *= x[d];
  g.value = static_cast<float>(attrs.GetFloat("value", 0));
  return g;
}

namespace {

class SequenceMaskOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs& attrs) const override { return SequenceInputNames(attrs); }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, InputNames(attrs).size());
    ExpectFloat32(attrs, in);
    const SequenceMaskGeometry g = ResolveSequenceMask(attrs, in[0].shape);
    ExpectSequenceLengths(attrs, in, g.batch);
    return {in[0]};
  }
};

const OpRegistrar kSequenceMask({{"SequenceMask"}}, new SequenceMaskOp);

}  // namespace
}  // namespace qv
