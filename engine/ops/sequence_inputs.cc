#include "ops/sequence_inputs.h"

#include "common/error.h"

namespace qv {

std::vector<std::string> SequenceInputNames(const Attrs& attrs) {
  if (attrs.GetBool("use_sequence_length", false)) return {"data", "sequence_length"};
  return {"data"};
}

void ExpectSequenceLengths(const Attrs& attrs, const std::vector<TensorType>& in, int64_t batch) {
  if (in.size() < 2) return;
  Check(in[1].shape == Shape{batch}, Status::kShape,
        attrs.Where() + "sequence_length has shape " + ShapeToString(in[1].shape) + ", expected " +
            ShapeToString(Shape{batch}) + " for data " + ShapeToString(in[0].shape));
}

}  // namespace qv
