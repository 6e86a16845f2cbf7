#include "ops/leaky_relu.h"

#include "common/error.h"

namespace qv {

LeakyReluParams LeakyReluParams::Parse(const Attrs& attrs) {
  LeakyReluParams p;
  const std::string t = attrs.GetString("act_type", "leaky");
  if (t == "leaky") p.type = kLeaky;
  else if (t == "prelu") p.type = kPRelu;
  else if (t == "rrelu") p.type = kRRelu;
  else if (t == "elu") p.type = kElu;
  else if (t == "selu") p.type = kSelu;
  else if (t == "gelu") p.type = kGelu;
  else throw Error(Status::kUnsupported, attrs.Where() + "act_type '" + t + "' is not supported");
  p.slope = static_cast<float>(attrs.GetFloat("slope", 0.25));
  if (p.type == kRRelu) {
    const double lower = attrs.GetFloat("lower_bound", 0.125), upper = attrs.GetFloat("upper_bound", 0.334);
    Check(lower <= upper, Status::kParse, attrs.Where() + "lower_bound is greater than upper_bound");
    p.slope = static_cast<float>((lower + upper) / 2);
  }
  return p;
}

namespace {

class LeakyReluOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs& attrs) const override {
    if (LeakyReluParams::Parse(attrs).type == LeakyReluParams::kPRelu) return {"data", "gamma"};
    return {"data"};
  }

  std::vector<int> ParamInputs(const Attrs& attrs) const override {
    if (LeakyReluParams::Parse(attrs).type == LeakyReluParams::kPRelu) return {1};
    return {};
  }

  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    const auto p = LeakyReluParams::Parse(attrs);
    ExpectInputs(attrs, in, InputNames(attrs).size());
    ExpectFloat32(attrs, in);
    const Shape& x = in[0].shape;
    Check(!x.empty(), Status::kShape, attrs.Where() + "data must have at least 1 dimension");
    if (p.type == LeakyReluParams::kPRelu) {
      // MXNet lines gamma up with axis 1 (axis 0 for 1-D data); one value applies to every channel.
      const int64_t channels = x.size() >= 2 ? x[1] : x[0];
      const Shape& g = in[1].shape;
      Check(g.size() == 1 && (g[0] == channels || g[0] == 1), Status::kShape,
            attrs.Where() + "gamma has shape " + ShapeToString(g) + ", expected " + ShapeToString({channels}) +
                " or (1,) for data " + ShapeToString(x));
    }
    return {in[0]};
  }
};

const OpRegistrar kRegister({{"LeakyReLU"}}, new LeakyReluOp);

}  // namespace
PReluGeometry ResolvePRelu(const Shape& x, const Shape& gamma) {
  const size_t axis = x.size() >= 2 ? 1 : 0;
  PReluGeometry g;
  for (size_t d = 0; d < axis; ++d) g.outer *= x[d];
  g.channels = x[axis];
  for (size_t d = axis + 1; d < x.size(); ++d) g.inner *= x[d];
  g.shared = gamma[0] == 1;
  return g;
}

}  // namespace qv
