#include "ops/split_stack.h"

#include "common/error.h"

namespace qv {
namespace {

int64_t Product(const Shape& s, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t d = begin; d < end; ++d) p *= s[d];
  return p;
}

// The axis SliceChannel cuts (negative counts from the end).
size_t SplitAxis(const Attrs& attrs, const Shape& input) {
  const int64_t ndim = static_cast<int64_t>(input.size());
  int64_t axis = attrs.GetInt("axis", 1);
  Check(axis >= -ndim && axis < ndim, Status::kShape,
        attrs.Where() + "axis " + std::to_string(axis) + " is out of range for " + ShapeToString(input));
  return static_cast<size_t>(axis < 0 ? axis + ndim : axis);
}

// The position of stack's new axis in the output (negative counts from the output's end).
size_t StackAxis(const Attrs& attrs, const Shape& input) {
  const int64_t ndim = static_cast<int64_t>(input.size()) + 1;
  int64_t axis = attrs.GetInt("axis", 0);
  Check(axis >= -ndim && axis < ndim, Status::kShape,
        attrs.Where() + "axis " + std::to_string(axis) + " is out of range for stacking " + ShapeToString(input));
  return static_cast<size_t>(axis < 0 ? axis + ndim : axis);
}

// num_outputs or num_args, bounded as Concat's num_args is (a corrupt file must not allocate without end).
int64_t Count(const Attrs& attrs, const char* key) {
  const int64_t n = attrs.RequireInt(key);
  Check(n >= 1 && n <= 4096, Status::kParse,
        attrs.Where() + key + " is " + std::to_string(n) + ", it must be between 1 and 4096");
  return n;
}

}  // namespace

RowBlocks ResolveSplit(const Attrs& attrs, const Shape& input) {
  const size_t axis = SplitAxis(attrs, input);
  const int64_t parts = Count(attrs, "num_outputs");
  Check(input[axis] % parts == 0, Status::kShape,
        attrs.Where() + "axis " + std::to_string(axis) + " of " + ShapeToString(input) + " (size " +
            std::to_string(input[axis]) + ") cannot be cut into " + std::to_string(parts) + " equal parts");
  return {Product(input, 0, axis), parts, input[axis] / parts * Product(input, axis + 1, input.size())};
}

RowBlocks ResolveStack(const Attrs& attrs, const Shape& input) {
  const size_t axis = StackAxis(attrs, input);
  return {Product(input, 0, axis), Count(attrs, "num_args"), Product(input, axis, input.size())};
}

namespace {

// SliceChannel / split: num_outputs equal parts along axis; squeeze_axis drops the axis when each
// part has size 1 there (it must: the axis's size equals num_outputs).
class SplitOp : public OpDef {
 public:
  int NumOutputs(const Attrs& attrs) const override { return static_cast<int>(Count(attrs, "num_outputs")); }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 1);
    ExpectFloat32(attrs, in);
    const Shape& x = in[0].shape;
    Check(!x.empty(), Status::kShape, attrs.Where() + "data must have at least 1 dimension");
    const RowBlocks b = ResolveSplit(attrs, x);
    const size_t axis = SplitAxis(attrs, x);
    Shape part = x;
    part[axis] /= b.parts;
    if (attrs.GetBool("squeeze_axis", false)) {
      Check(part[axis] == 1, Status::kShape,
            attrs.Where() + "squeeze_axis needs axis " + std::to_string(axis) + " of " + ShapeToString(x) +
                " to have num_outputs (" + std::to_string(b.parts) + ") elements");
      part.erase(part.begin() + static_cast<int64_t>(axis));
      if (part.empty()) part.push_back(1);
    }
    return std::vector<TensorType>(static_cast<size_t>(b.parts), {part, in[0].dtype});
  }
  OpTraits Traits(const Attrs&) const override { return MovesData(DataMovement::kSplit); }
};

// stack: num_args inputs of one shape joined along a new axis.
class StackOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs& attrs) const override {
    std::vector<std::string> names;
    for (int64_t i = 0; i < Count(attrs, "num_args"); ++i) names.push_back("arg" + std::to_string(i));
    return names;
  }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, static_cast<size_t>(Count(attrs, "num_args")));
    ExpectFloat32(attrs, in);
    for (size_t i = 1; i < in.size(); ++i)
      Check(in[i].shape == in[0].shape, Status::kShape,
            attrs.Where() + "input " + std::to_string(i) + " has shape " + ShapeToString(in[i].shape) +
                ", input 0 " + ShapeToString(in[0].shape) + "; stacked inputs must have one shape");
    Shape out = in[0].shape;
    out.insert(out.begin() + static_cast<int64_t>(StackAxis(attrs, in[0].shape)), static_cast<int64_t>(in.size()));
    return {{out, in[0].dtype}};
  }
  OpTraits Traits(const Attrs&) const override { return MovesData(DataMovement::kJoin); }
};

const OpRegistrar kSplit({{"SliceChannel", {"split"}}}, new SplitOp);
const OpRegistrar kStack({{"stack"}}, new StackOp);

}  // namespace
}  // namespace qv
