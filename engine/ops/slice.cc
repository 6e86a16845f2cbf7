#include <algorithm>

#include "common/error.h"
#include "ops/shape_ops.h"

namespace qv {
namespace {

// slice: per axis, Python-like begin/end/step (None: from the start/end in the step's direction);
// out-of-range bounds are clamped. Axes past the tuples are kept whole.
SliceWindow ResolveSliceTuples(const Attrs& attrs, const Shape& x) {
  attrs.Require("begin");
  attrs.Require("end");
  const auto begin = attrs.GetOptionalTuple("begin"), end = attrs.GetOptionalTuple("end");
  const auto step = attrs.GetOptionalTuple("step");
  Check(begin.size() == end.size() && (step.empty() || step.size() == begin.size()), Status::kParse,
        attrs.Where() + "begin, end and step must have the same length");
  Check(begin.size() <= x.size(), Status::kShape,
        attrs.Where() + "begin has " + std::to_string(begin.size()) + " entries for data " + ShapeToString(x));
  SliceWindow w;
  for (size_t d = 0; d < x.size(); ++d) {
    const int64_t len = x[d];
    int64_t b = 0, s = 1, n = len;
    if (d < begin.size()) {
      s = step.empty() ? 1 : step[d].value_or(1);
      Check(s != 0, Status::kParse, attrs.Where() + "step must not be 0");
      if (s > 0) {
        b = begin[d].value_or(0);
        int64_t e = end[d].value_or(len);
        if (b < 0) b += len;
        if (e < 0) e += len;
        b = std::clamp<int64_t>(b, 0, len);
        e = std::clamp<int64_t>(e, 0, len);
        n = e > b ? (e - b - 1) / s + 1 : 0;
      } else {
        b = begin[d].value_or(len - 1);
        int64_t e = end[d].value_or(-1);  // None: through index 0
        if (begin[d] && b < 0) b += len;
        if (end[d] && e < 0) e += len;
        b = std::min(b, len - 1);
        e = std::max<int64_t>(e, -1);
        n = b >= 0 && b > e ? (b - e - 1) / -s + 1 : 0;
      }
    }
    Check(n > 0, Status::kShape,
          attrs.Where() + "the slice of axis " + std::to_string(d) + " of " + ShapeToString(x) + " is empty");
    w.out.push_back(n);
    w.begin.push_back(b);
    w.step.push_back(s);
  }
  return w;
}

// slice_axis: begin (negative counts from the end) up to end (None: the end) along one axis.
SliceWindow ResolveSliceAxis(const Attrs& attrs, const Shape& x) {
  const int64_t ndim = static_cast<int64_t>(x.size());
  int64_t axis = attrs.RequireInt("axis");
  Check(axis >= -ndim && axis < ndim, Status::kShape,
        attrs.Where() + "axis " + std::to_string(axis) + " is out of range for " + ShapeToString(x));
  if (axis < 0) axis += ndim;
  const int64_t len = x[axis];
  int64_t b = attrs.RequireInt("begin");
  attrs.Require("end");
  int64_t e = attrs.GetInt("end", len);
  if (b < 0) b += len;
  if (e < 0) e += len;
  Check(b >= 0 && b < e && e <= len, Status::kShape,
        attrs.Where() + "begin " + attrs.GetString("begin", "") + " and end " + attrs.GetString("end", "") +
            " do not select a non-empty range of axis " + std::to_string(axis) + " of " + ShapeToString(x));
  SliceWindow w{x, std::vector<int64_t>(x.size(), 0), std::vector<int64_t>(x.size(), 1)};
  w.out[axis] = e - b;
  w.begin[axis] = b;
  return w;
}

class SliceLikeOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs&) const override { return {"data", "shape_like"}; }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 2);
    ExpectFloat32(attrs, in);
    return {{ResolveSliceLike(attrs, in[0].shape, in[1].shape).out, in[0].dtype}};
  }
  // A window, but one the constant-folding pass does not resolve.
  OpTraits Traits(const Attrs&) const override { return MovesData(DataMovement::kCompute, OutputDType::kOfFirstInput); }
};

class SliceOp : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 1);
    ExpectFloat32(attrs, in);
    Check(!in[0].shape.empty(), Status::kShape, attrs.Where() + "data must have at least 1 dimension");
    return {{ResolveSlice(attrs, in[0].shape).out, in[0].dtype}};
  }
  OpTraits Traits(const Attrs&) const override { return MovesData(DataMovement::kStrided); }
};

const OpRegistrar kRegister({{"slice", {"crop"}}, {"slice_axis"}}, new SliceOp);
const OpRegistrar kRegisterLike({{"slice_like"}}, new SliceLikeOp);

}  // namespace

SliceWindow ResolveSlice(const Attrs& attrs, const Shape& input) {
  return attrs.op() == "slice_axis" ? ResolveSliceAxis(attrs, input) : ResolveSliceTuples(attrs, input);
}

SliceWindow ResolveSliceLike(const Attrs& attrs, const Shape& input, const Shape& like) {
  const int64_t ndim = static_cast<int64_t>(input.size());
  std::vector<int64_t> axes = attrs.GetTuple("axes", {});
  if (axes.empty()) {
    Check(like.size() == input.size(), Status::kShape,
          attrs.Where() + "without axes, shape_like " + ShapeToString(like) + " must have the rank of data " +
              ShapeToString(input));
    for (int64_t d = 0; d < ndim; ++d) axes.push_back(d);
  }
  SliceWindow w{input, std::vector<int64_t>(input.size(), 0), std::vector<int64_t>(input.size(), 1)};
  for (int64_t a : axes) {
    const int64_t axis = a < 0 ? a + ndim : a;
    Check(axis >= 0 && axis < ndim && axis < static_cast<int64_t>(like.size()), Status::kShape,
          attrs.Where() + "axis " + std::to_string(a) + " is out of range for data " + ShapeToString(input) +
              " and shape_like " + ShapeToString(like));
    Check(like[axis] >= 1 && like[axis] <= input[axis], Status::kShape,
          attrs.Where() + "shape_like " + ShapeToString(like) + " is larger than data " + ShapeToString(input) +
              " along axis " + std::to_string(axis));
    w.out[axis] = like[axis];
  }
  return w;
}

}  // namespace qv
