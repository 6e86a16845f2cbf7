#include "ops/fill.h"

#include <cmath>

#include "common/error.h"

namespace qv {

ArangeSpec ResolveArange(const Attrs& attrs) {
  Check(!attrs.GetBool("infer_range", false), Status::kUnsupported,
        attrs.Where() + "infer_range=True (a range sized by its consumer) is not supported");
  const std::string dtype = attrs.GetString("dtype", "float32");
  Check(dtype == "float32", Status::kUnsupported, attrs.Where() + "dtype " + dtype + " is not supported, only float32");
  ArangeSpec a;
  a.start = attrs.GetFloat("start", 0);
  double stop = attrs.GetFloat("stop", std::nan(""));
  if (std::isnan(stop)) {
    stop = a.start;
    a.start = 0;
  }
  a.step = attrs.GetFloat("step", 1);
  a.repeat = attrs.GetInt("repeat", 1);
  Check(a.step != 0, Status::kParse, attrs.Where() + "step must not be 0");
  Check(a.repeat >= 1, Status::kParse, attrs.Where() + "repeat must be at least 1");
  const double count = std::ceil((stop - a.start) / a.step);
  Check(count >= 1 && count < 1e12, Status::kShape,
        attrs.Where() + "start " + std::to_string(a.start) + ", stop " + std::to_string(stop) + ", step " +
            std::to_string(a.step) + " give an empty range");
  a.count = static_cast<int64_t>(count);
  return a;
}

Shape ArangeLikeShape(const Attrs& attrs, const Shape& x) {
  const std::string axis_text = attrs.GetString("axis", "None");
  if (axis_text == "None") return x;
  const int64_t ndim = static_cast<int64_t>(x.size());
  int64_t axis = attrs.GetInt("axis", 0);
  Check(axis >= -ndim && axis < ndim, Status::kShape,
        attrs.Where() + "axis " + std::to_string(axis) + " is out of range for " + ShapeToString(x));
  return {x[axis < 0 ? axis + ndim : axis]};
}

std::vector<float> ArangeLikeValues(const Attrs& attrs, const Shape& output) {
  const float start = static_cast<float>(attrs.GetFloat("start", 0));
  const float step = static_cast<float>(attrs.GetFloat("step", 1));
  const int64_t repeat = attrs.GetInt("repeat", 1);
  Check(repeat >= 1, Status::kParse, attrs.Where() + "repeat must be at least 1, got " + std::to_string(repeat));
  std::vector<float> values(static_cast<size_t>(ElementCount(output)));
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = start + static_cast<float>(static_cast<int64_t>(i) / repeat) * step;
  return values;
}

std::vector<float> ShapeArrayValues(const Attrs& attrs, const Shape& input) {
  std::vector<float> values;
  for (int64_t d : input) {
    Check(d <= (int64_t{1} << 24), Status::kUnsupported,
          attrs.Where() + "dimension " + std::to_string(d) + " of " + ShapeToString(input) +
              " is not exact in float32, which holds shape_array's values");
    values.push_back(static_cast<float>(d));
  }
  return values;
}

namespace {

class ShapeArrayOp : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 1);
    ExpectFloat32(attrs, in);
    ShapeArrayValues(attrs, in[0].shape);  // checks the dimensions
    return {{{static_cast<int64_t>(in[0].shape.size())}, DType::kFloat32}};
  }
  OpTraits Traits(const Attrs&) const override {
    OpTraits t;
    t.output_dtypes = {OutputDType::kInteger};  // int64 in MXNet
    return t;
  }
};

class ArangeLikeOp : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 1);
    ExpectFloat32(attrs, in);
    const Shape out = ArangeLikeShape(attrs, in[0].shape);
    ArangeLikeValues(attrs, {});  // checks the attributes
    return {{out, DType::kFloat32}};
  }
};

class FillLikeOp : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 1);
    ExpectFloat32(attrs, in);
    return {in[0]};
  }
  OpTraits Traits(const Attrs&) const override {
    OpTraits t;
    t.output_dtypes = {OutputDType::kOfInputs};
    return t;
  }
};

// _zeros and _ones (shape, dtype). A 0 in the shape is a size MXNet's shape inference fills from the
// consumer; Quiver does that for RNN begin states (DropZeroBeginStates, graph/bound_graph.h) and fills
// that meet a sized operand in an elementwise op (InferFillSizes: unrolled cells), and refuses the others.
class FillOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs&) const override { return {}; }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 0);
    const std::string dtype = attrs.GetString("dtype", "float32");
    Check(dtype == "float32", Status::kUnsupported, attrs.Where() + "dtype " + dtype + " is not supported, only float32");
    const Shape shape = attrs.GetTuple("shape", {});
    for (int64_t d : shape)
      Check(d >= 1, Status::kUnsupported,
            attrs.Where() + "shape " + ShapeToString(shape) +
                " has a size left to shape inference (0) or negative, which Quiver infers only for RNN begin states and"
                " from an elementwise consumer's other operand");
    return {{shape.empty() ? Shape{1} : shape, DType::kFloat32}};
  }
};

class ArangeOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs&) const override { return {}; }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 0);
    return {{{ResolveArange(attrs).size()}, DType::kFloat32}};
  }
};

const OpRegistrar kFillLike({{"zeros_like"}, {"ones_like"}}, new FillLikeOp);
const OpRegistrar kFill({{"_zeros"}, {"_ones"}}, new FillOp);
const OpRegistrar kArange({{"_arange"}}, new ArangeOp);
const OpRegistrar kShapeArray({{"shape_array"}}, new ShapeArrayOp);
const OpRegistrar kArangeLike({{"_contrib_arange_like"}}, new ArangeLikeOp);

}  // namespace
}  // namespace qv
