#include "ops/concat.h"

#include "common/error.h"

namespace qv {

int ConcatAxis(const Attrs& attrs, const Shape& shape) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  int64_t dim = attrs.GetInt("dim", 1);
  if (dim < 0) dim += rank;
  Check(dim >= 0 && dim < rank, Status::kShape, attrs.Where() + "dim out of range for " + ShapeToString(shape));
  return static_cast<int>(dim);
}

namespace {

class ConcatOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs& attrs) const override {
    const int64_t n = attrs.RequireInt("num_args");
    Check(n >= 1 && n <= 4096, Status::kParse, attrs.Where() + "num_args must be between 1 and 4096");
    std::vector<std::string> names;
    for (int64_t i = 0; i < n; ++i) names.push_back("arg" + std::to_string(i));
    return names;
  }

  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, InputNames(attrs).size());
    ExpectFloat32(attrs, in);
    Shape out = in[0].shape;
    const int64_t ndim = static_cast<int64_t>(out.size());
    const int64_t dim = ConcatAxis(attrs, out);
    for (size_t i = 1; i < in.size(); ++i) {
      const Shape& s = in[i].shape;
      bool fits = s.size() == out.size();
      for (int64_t d = 0; fits && d < ndim; ++d) fits = d == dim || s[d] == out[d];
      Check(fits, Status::kShape,
            attrs.Where() + "input " + std::to_string(i) + " " + ShapeToString(s) + " does not fit " +
                ShapeToString(in[0].shape) + " along dim " + std::to_string(dim));
      out[dim] += s[dim];
    }
    return {{out, DType::kFloat32}};
  }
  OpTraits Traits(const Attrs&) const override { return MovesData(DataMovement::kJoin); }
};

// _rnn_param_concat is Concat with a shape inference that also runs backward; forward it is the same.
const OpRegistrar kRegister({{"Concat", {"concat", "_rnn_param_concat"}}}, new ConcatOp);

}  // namespace
}  // namespace qv
