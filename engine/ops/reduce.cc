#include "ops/reduce.h"

#include <algorithm>

#include "common/error.h"

namespace qv {

ReduceKind ReduceKindOf(const std::string& op) {
  if (op == "sum") return ReduceKind::kSum;
  if (op == "mean") return ReduceKind::kMean;
  if (op == "max") return ReduceKind::kMax;
  if (op == "min") return ReduceKind::kMin;
  if (op == "prod") return ReduceKind::kProd;
  throw Error(Status::kInternal, "not a reduction: " + op);
}

namespace {

// Which axes are reduced: `axis` (negative ones count from the end; absent, None or () is every axis),
// or with exclude=True every axis but those.
std::vector<bool> ReducedAxes(const Attrs& attrs, const Shape& input) {
  const int64_t ndim = static_cast<int64_t>(input.size());
  std::vector<int64_t> axes = attrs.GetTuple("axis", {});
  if (axes.empty()) return std::vector<bool>(input.size(), true);
  std::vector<bool> named(input.size(), false);
  for (int64_t a : axes) {
    Check(a >= -ndim && a < ndim, Status::kShape,
          attrs.Where() + "axis " + std::to_string(a) + " is out of range for " + ShapeToString(input));
    if (a < 0) a += ndim;
    Check(!named[a], Status::kShape, attrs.Where() + "axis " + attrs.GetString("axis", "") + " repeats an axis");
    named[a] = true;
  }
  if (attrs.GetBool("exclude", false)) named.flip();
  return named;
}

// MXNet's output shape: the kept axes; with keepdims the reduced ones as 1s; (1) when nothing is kept.
Shape ReduceOutput(const Attrs& attrs, const Shape& input) {
  const std::vector<bool> reduced = ReducedAxes(attrs, input);
  const bool keepdims = attrs.GetBool("keepdims", false);
  Shape out;
  for (size_t d = 0; d < input.size(); ++d) {
    if (!reduced[d]) out.push_back(input[d]);
    else if (keepdims) out.push_back(1);
  }
  if (out.empty()) out.push_back(1);
  return out;
}

class ReduceOp : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 1);
    ExpectFloat32(attrs, in);
    Check(!in[0].shape.empty(), Status::kShape, attrs.Where() + "data must have at least 1 dimension");
    return {{ReduceOutput(attrs, in[0].shape), in[0].dtype}};
  }
};

const std::vector<OpNames>& MemberNames() {
  static const auto* names = new std::vector<OpNames>{
      {"sum", {"sum_axis"}}, {"mean"}, {"max", {"max_axis"}}, {"min", {"min_axis"}}, {"prod"}};
  return *names;
}

const OpRegistrar kRegister(MemberNames(), new ReduceOp);

}  // namespace

const std::vector<std::string>& ReduceOps() {
  static const auto* ops = new std::vector<std::string>(NamesOf(MemberNames()));
  return *ops;
}

Shape ReducedKeepingDims(const Attrs& attrs, const Shape& input) {
  const std::vector<bool> reduced = ReducedAxes(attrs, input);
  Shape out = input;
  for (size_t d = 0; d < input.size(); ++d)
    if (reduced[d]) out[d] = 1;
  return out;
}

}  // namespace qv
