#include "ops/topk.h"

#include "common/error.h"

namespace qv {

TopKParams TopKParams::Resolve(const Attrs& attrs, const Shape& input) {
  TopKParams p;
  // argsort is MXNet's topk of every element, returning indices, ascending unless told otherwise.
  const bool argsort = attrs.op() == "argsort";
  const std::string ret = argsort ? "indices" : attrs.GetString("ret_typ", "indices");
  if (ret == "value") p.ret = TopKReturn::kValue;
  else if (ret == "indices") p.ret = TopKReturn::kIndices;
  else if (ret == "mask") p.ret = TopKReturn::kMask;
  else if (ret == "both") p.ret = TopKReturn::kBoth;
  else throw Error(Status::kParse, attrs.Where() + "ret_typ '" + ret + "' is not one of value, indices, mask, both");
  p.ascend = attrs.GetBool("is_ascend", argsort);
  // Indices are kept in float32 whatever dtype names; these dtypes hold every index float32 holds.
  const std::string dtype = attrs.GetString("dtype", "float32");
  Check(dtype == "float32" || dtype == "float64" || dtype == "int32" || dtype == "int64", Status::kUnsupported,
        attrs.Where() + "dtype " + dtype + " is not supported for indices (float32, float64, int32, int64 are)");
  Check(!input.empty() && ElementCount(input) > 0, Status::kShape,
        attrs.Where() + "data " + ShapeToString(input) + " has no elements");

  const std::string axis_text = attrs.GetString("axis", "-1");
  if (axis_text == "None") {
    p.n = ElementCount(input);
  } else {
    const int64_t ndim = static_cast<int64_t>(input.size());
    int64_t axis = attrs.GetInt("axis", -1);
    Check(axis >= -ndim && axis < ndim, Status::kShape,
          attrs.Where() + "axis " + std::to_string(axis) + " is out of range for " + ShapeToString(input));
    if (axis < 0) axis += ndim;
    for (int64_t d = 0; d < axis; ++d) p.outer *= input[d];
    p.n = input[axis];
    for (int64_t d = axis + 1; d < ndim; ++d) p.inner *= input[d];
  }
  Check(p.n <= (int64_t{1} << 24), Status::kUnsupported,
        attrs.Where() + "sorts " + std::to_string(p.n) + " elements together; float32 indices are exact up to 2^24");
  p.k = argsort ? 0 : attrs.GetInt("k", 1);
  if (p.k <= 0) p.k = p.n;
  Check(p.k <= p.n, Status::kShape,
        attrs.Where() + "k " + std::to_string(p.k) + " is more than the " + std::to_string(p.n) + " elements of " +
            (axis_text == "None" ? std::string("the flattened data ") : "axis " + axis_text + " of ") +
            ShapeToString(input));
  if (axis_text == "None") {
    p.selected = {p.k};
  } else {
    p.selected = input;
    const int64_t ndim = static_cast<int64_t>(input.size());
    int64_t axis = attrs.GetInt("axis", -1);
    p.selected[static_cast<size_t>(axis < 0 ? axis + ndim : axis)] = p.k;
  }
  return p;
}

namespace {

class TopKOp : public OpDef {
 public:
  int NumOutputs(const Attrs& attrs) const override {
    return attrs.op() == "topk" && attrs.GetString("ret_typ", "indices") == "both" ? 2 : 1;
  }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 1);
    ExpectFloat32(attrs, in);
    const TopKParams p = TopKParams::Resolve(attrs, in[0].shape);
    if (p.ret == TopKReturn::kMask) return {in[0]};
    if (p.ret == TopKReturn::kBoth) return {{p.selected, DType::kFloat32}, {p.selected, DType::kFloat32}};
    return {{p.selected, DType::kFloat32}};
  }
  // Values and masks have the data's type; indices the `dtype` attribute's.
  OpTraits Traits(const Attrs& attrs) const override {
    const std::string dtype = attrs.GetString("dtype", "float32");
    const OutputDType indices =
        dtype == "int32" || dtype == "int64" ? OutputDType::kInteger : OutputDType::kFloating;
    OpTraits t;
    const std::string ret = attrs.op() == "argsort" ? "indices" : attrs.GetString("ret_typ", "indices");
    if (ret == "both") t.output_dtypes = {OutputDType::kOfInputs, indices};
    else t.output_dtypes = {ret == "indices" ? indices : OutputDType::kOfInputs};
    return t;
  }
};

const OpRegistrar kRegister({{"topk"}, {"argsort"}}, new TopKOp);

}  // namespace
}  // namespace qv
