#include <algorithm>

#include "common/error.h"
#include "ops/shape_ops.h"

namespace qv {

Shape TileOutput(const Attrs& attrs, const Shape& input) {
  attrs.Require("reps");
  const std::vector<int64_t> reps = attrs.GetTuple("reps", {});
  for (int64_t r : reps)
    // A 0 would make an empty tensor, which MXNet's own (non-numpy) shape inference refuses too.
    Check(r >= 1, Status::kShape, attrs.Where() + "reps " + attrs.GetString("reps", "") + " must all be at least 1");
  const size_t ndim = std::max(input.size(), reps.size());
  Shape out(ndim, 1);
  for (size_t i = 0; i < ndim; ++i) {
    const size_t d = ndim - 1 - i;
    const int64_t x = i < input.size() ? input[input.size() - 1 - i] : 1;
    const int64_t r = i < reps.size() ? reps[reps.size() - 1 - i] : 1;
    out[d] = CheckedMul(x, r, attrs.Where() + "output dimension " + std::to_string(d) + " (" + std::to_string(x) +
                                  " x reps " + std::to_string(r) + ")");
  }
  return out;
}

namespace {

// tile(data, reps): the data repeated reps[d] times along each axis d, as numpy.tile.
class TileOp : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 1);
    ExpectFloat32(attrs, in);
    Check(!in[0].shape.empty(), Status::kShape, attrs.Where() + "data must have at least 1 dimension");
    return {{TileOutput(attrs, in[0].shape), in[0].dtype}};
  }
  OpTraits Traits(const Attrs&) const override { return MovesData(DataMovement::kEnlarge); }
};

const OpRegistrar kRegister({{"tile"}}, new TileOp);

}  // namespace
}  // namespace qv
