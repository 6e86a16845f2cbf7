// Reshape (with MXNet's special codes), expand_dims, squeeze and reshape_like: the data keeps its row-major order.
#include <algorithm>

#include "common/error.h"
#include "ops/shape_ops.h"

namespace qv {

// Each entry of `shape` consumes input dimensions from the left (from the right with reverse=True):
//   n > 0: a dimension of size n (consumes one)      0: copies one input dimension
//   -1: inferred from the element count (consumes one)  -2: copies all remaining dimensions
//   -3: multiplies the next two input dimensions      -4, a, b: splits one input dimension into a x b
//                                                      (one of a, b may be -1)
Shape ReshapeOutput(const Attrs& attrs, const Shape& input) {
  Check(attrs.GetTuple("target_shape", {}).empty(), Status::kUnsupported,
        attrs.Where() + "the deprecated target_shape attribute is not supported");
  std::vector<int64_t> spec = attrs.GetTuple("shape", {});
  Check(!spec.empty(), Status::kParse, attrs.Where() + "attribute 'shape' is missing or empty");
  const bool reverse = attrs.GetBool("reverse", false);
  Shape src = input;
  if (reverse) {
    std::reverse(src.begin(), src.end());
    std::reverse(spec.begin(), spec.end());
  }
  const std::string shown = attrs.GetString("shape", "");
  auto fail = [&](const std::string& why) {
    throw Error(Status::kShape, attrs.Where() + "cannot reshape " + ShapeToString(input) + " with shape=" + shown + ": " + why);
  };
  Shape out;
  size_t next = 0;
  int inferred = -1;
  auto take = [&]() {
    if (next >= src.size()) fail("it uses more dimensions than the input has");
    return src[next++];
  };
  for (size_t i = 0; i < spec.size(); ++i) {
    const int64_t code = spec[i];
    if (code > 0) {
      out.push_back(code);
      ++next;
    } else if (code == 0) {
      out.push_back(take());
    } else if (code == -1) {
      if (inferred >= 0) fail("more than one -1");
      inferred = static_cast<int>(out.size());
      out.push_back(1);
      ++next;
    } else if (code == -2) {
      while (next < src.size()) out.push_back(src[next++]);
    } else if (code == -3) {
      const int64_t a = take();
      out.push_back(a * take());
    } else if (code == -4) {
      if (i + 2 >= spec.size()) fail("-4 needs two sizes after it");
      const int64_t whole = take();
      int64_t a = spec[++i], b = spec[++i];
      if ((a == -1 && b == -1) || a == 0 || b == 0 || a < -1 || b < -1) fail("-4 takes two sizes, at most one -1");
      if (a == -1) a = whole / b;
      if (b == -1) b = whole / a;
      if (a * b != whole) fail("the split does not divide " + std::to_string(whole));
      out.push_back(a);
      out.push_back(b);
    } else {
      fail("unknown code " + std::to_string(code));
    }
  }
  const int64_t total = ElementCount(input);
  if (inferred >= 0) {
    const int64_t known = ElementCount(out);
    if (known <= 0 || total % known != 0) fail("the -1 cannot be inferred");
    out[inferred] = total / known;
  }
  if (reverse) std::reverse(out.begin(), out.end());
  if (ElementCount(out) != total) fail("the result " + ShapeToString(out) + " has another element count");
  return out;
}

Shape SqueezeOutput(const Attrs& attrs, const Shape& input) {
  const int64_t ndim = static_cast<int64_t>(input.size());
  std::vector<bool> drop(input.size(), false);
  if (attrs.GetString("axis", "None") == "None") {
    for (int64_t d = 0; d < ndim; ++d) drop[d] = input[d] == 1;
  } else {
    for (int64_t a : attrs.GetTuple("axis", {})) {
      Check(a >= -ndim && a < ndim, Status::kShape,
            attrs.Where() + "axis " + std::to_string(a) + " is out of range for " + ShapeToString(input));
      if (a < 0) a += ndim;
      Check(input[a] == 1, Status::kShape,
            attrs.Where() + "axis " + std::to_string(a) + " of " + ShapeToString(input) + " has size " +
                std::to_string(input[a]) + "; only size-1 axes can be squeezed out");
      drop[a] = true;
    }
  }
  Shape out;
  for (int64_t d = 0; d < ndim; ++d)
    if (!drop[d]) out.push_back(input[d]);
  if (out.empty()) out.push_back(1);  // MXNet's (non-numpy) arrays have at least one dimension
  return out;
}

Shape ReshapeLikeOutput(const Attrs& attrs, const Shape& lhs, const Shape& rhs) {
  // A [begin, end) range of a shape's axes; negative bounds count from the end, None is the end.
  auto range = [&](const char* begin_key, const char* end_key, const Shape& s) {
    const int64_t n = static_cast<int64_t>(s.size());
    auto bound = [&](const char* key, int64_t fallback) {
      if (attrs.GetString(key, "None") == "None") return fallback;
      int64_t b = attrs.GetInt(key, fallback);
      if (b < 0) b += n;
      Check(b >= 0 && b <= n, Status::kShape,
            attrs.Where() + key + " " + attrs.GetString(key, "") + " is out of range for " + ShapeToString(s));
      return b;
    };
    const int64_t begin = bound(begin_key, 0), end = bound(end_key, n);
    Check(begin <= end, Status::kShape,
          attrs.Where() + begin_key + " is past " + end_key + " for " + ShapeToString(s));
    return std::pair<int64_t, int64_t>(begin, end);
  };
  const auto [lb, le] = range("lhs_begin", "lhs_end", lhs);
  const auto [rb, re] = range("rhs_begin", "rhs_end", rhs);
  Shape out(lhs.begin(), lhs.begin() + lb);
  out.insert(out.end(), rhs.begin() + rb, rhs.begin() + re);
  out.insert(out.end(), lhs.begin() + le, lhs.end());
  Check(ElementCount(out) == ElementCount(lhs), Status::kShape,
        attrs.Where() + "cannot reshape " + ShapeToString(lhs) + " to " + ShapeToString(out) + " (like " +
            ShapeToString(rhs) + "): another element count");
  return out;
}

namespace {

class ReshapeOp : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 1);
    ExpectFloat32(attrs, in);
    return {{ReshapeOutput(attrs, in[0].shape), in[0].dtype}};
  }
  OpTraits Traits(const Attrs&) const override { return MovesData(DataMovement::kSameOrder); }
};

// expand_dims(axis): a new dimension of size 1 at axis, which may be -ndim-1 .. ndim.
class ExpandDimsOp : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 1);
    ExpectFloat32(attrs, in);
    Shape out = in[0].shape;
    const int64_t ndim = static_cast<int64_t>(out.size());
    int64_t axis = attrs.RequireInt("axis");
    Check(axis >= -ndim - 1 && axis <= ndim, Status::kShape,
          attrs.Where() + "axis " + std::to_string(axis) + " is out of range for " + ShapeToString(out));
    if (axis < 0) axis += ndim + 1;
    out.insert(out.begin() + axis, 1);
    return {{out, in[0].dtype}};
  }
  OpTraits Traits(const Attrs&) const override { return MovesData(DataMovement::kSameOrder); }
};

// squeeze(axis): size-1 axes removed.
class SqueezeOp : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 1);
    ExpectFloat32(attrs, in);
    return {{SqueezeOutput(attrs, in[0].shape), in[0].dtype}};
  }
  OpTraits Traits(const Attrs&) const override { return MovesData(DataMovement::kSameOrder); }
};

// reshape_like(lhs, rhs): lhs's data with (part of) rhs's shape; rhs's values are not read.
class ReshapeLikeOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs&) const override { return {"lhs", "rhs"}; }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 2);
    ExpectFloat32(attrs, in);
    return {{ReshapeLikeOutput(attrs, in[0].shape, in[1].shape), in[0].dtype}};
  }
  OpTraits Traits(const Attrs&) const override { return MovesData(DataMovement::kSameOrder, OutputDType::kOfFirstInput); }
};

const OpRegistrar kReshape({{"Reshape", {"reshape"}}}, new ReshapeOp);
const OpRegistrar kSqueeze({{"squeeze"}}, new SqueezeOp);
const OpRegistrar kReshapeLike({{"reshape_like"}}, new ReshapeLikeOp);
const OpRegistrar kExpandDims({{"expand_dims"}}, new ExpandDimsOp);

}  // namespace
}  // namespace qv
