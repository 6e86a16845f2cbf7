// add_n (also ElementWiseSum): the sum of num_args inputs of one shape.
#include "common/error.h"
#include "ops/op.h"

namespace qv {
namespace {

int64_t AddNArgs(const Attrs& attrs) {
  const int64_t n = attrs.RequireInt("num_args");
  Check(n >= 1 && n <= 4096, Status::kParse, attrs.Where() + "num_args must be between 1 and 4096");
  return n;
}

class AddNOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs& attrs) const override {
    std::vector<std::string> names;
    for (int64_t i = 0; i < AddNArgs(attrs); ++i) names.push_back("arg" + std::to_string(i));
    return names;
  }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, static_cast<size_t>(AddNArgs(attrs)));
    ExpectFloat32(attrs, in);
    for (size_t i = 1; i < in.size(); ++i)
      Check(in[i].shape == in[0].shape, Status::kShape,
            attrs.Where() + "input " + std::to_string(i) + " has shape " + ShapeToString(in[i].shape) + ", input 0 " +
                ShapeToString(in[0].shape) + "; added inputs must have one shape");
    return {in[0]};
  }
};

const OpRegistrar kRegister({{"add_n", {"ElementWiseSum"}}}, new AddNOp);

}  // namespace
}  // namespace qv
