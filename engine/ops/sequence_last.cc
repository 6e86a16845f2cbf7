#include "ops/sequence_last.h"

#include "common/error.h"
#include "ops/sequence_inputs.h"

namespace qv {

SequenceLastGeometry ResolveSequenceLast(const Attrs& attrs, const Shape& data) {
  const int64_t axis = attrs.GetInt("axis", 0);
  Check(axis == 0 || axis == 1, Status::kUnsupported,
        attrs.Where() + "axis " + std::to_string(axis) + " is not supported, only 0 and 1 (as in MXNet)");
  Check(data.size() >= 2, Status::kShape, attrs.Where() + "data " + ShapeToString(data) + " needs at least 2 dimensions");
  SequenceLastGeometry g;
  g.batch_major = axis == 1;
  g.steps = data[static_cast<size_t>(axis)];
  g.batch = data[static_cast<size_t>(1 - axis)];
  for (size_t d = 2; d < data.size(); ++d) g.row *= data[d];
  g.use_length = attrs.GetBool("use_sequence_length", false);
  return g;
}

namespace {

class SequenceLastOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs& attrs) const override { return SequenceInputNames(attrs); }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, InputNames(attrs).size());
    ExpectFloat32(attrs, in);
    const SequenceLastGeometry g = ResolveSequenceLast(attrs, in[0].shape);
    ExpectSequenceLengths(attrs, in, g.batch);
    Shape out = in[0].shape;
    out.erase(out.begin() + (g.batch_major ? 1 : 0));
    return {{out, DType::kFloat32}};
  }
};

const OpRegistrar kRegister({{"SequenceLast"}}, new SequenceLastOp);

}  // namespace
}  // namespace qv
