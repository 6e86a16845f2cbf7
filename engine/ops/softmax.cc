#include "ops/softmax.h"

#include <algorithm>

#include "common/error.h"

namespace qv {

SoftmaxGeometry ResolveSoftmax(const Attrs& attrs, const Shape& x) {
  Check(!x.empty(), Status::kShape, attrs.Where() + "data must have at least 1 dimension");
  const int64_t ndim = static_cast<int64_t>(x.size());
  int64_t axis = ndim - 1;
  SoftmaxGeometry g;
  if (attrs.op() == "softmax") {
    axis = attrs.GetInt("axis", -1);
    if (axis < 0) axis += ndim;
    Check(axis >= 0 && axis < ndim, Status::kShape, attrs.Where() + "axis out of range for " + ShapeToString(x));
    g.temperature = attrs.GetFloat("temperature", 1.0);
    Check(g.temperature > 0, Status::kParse, attrs.Where() + "temperature must be positive");
    g.use_length = attrs.GetBool("use_length", false);
  } else if (attrs.op() == "SoftmaxActivation") {
    const std::string mode = attrs.GetString("mode", "instance");
    if (mode == "channel") {
      // (N, C, rest...): a C-way softmax at each position of each instance.
      Check(ndim >= 3, Status::kShape, attrs.Where() + "mode 'channel' needs at least 3 dimensions, got " +
                                           ShapeToString(x));
      axis = 1;
    } else {
      Check(mode == "instance", Status::kParse,
            attrs.Where() + "mode '" + mode + "' is not 'instance' or 'channel'");
      // (N, rest...) flattened to (N, rest): one softmax per instance.
      g.outer = x[0];
      g.axis = ElementCount(x) / std::max<int64_t>(x[0], 1);
      return g;
    }
  } else if (attrs.GetBool("multi_output", false)) {
    Check(ndim >= 2, Status::kShape, attrs.Where() + "multi_output needs at least 2 dimensions");
    axis = 1;
  } else if (!attrs.GetBool("preserve_shape", false)) {
    // MXNet flattens (N, ...) to (N, rest) and normalises over the rest.
    g.outer = x[0];
    g.axis = ndim > 1 ? ElementCount(Shape(x.begin() + 1, x.end())) : 1;
    if (ndim == 1) { g.outer = 1; g.axis = x[0]; }
    return g;
  }
  for (int64_t i = 0; i < axis; ++i) g.outer *= x[i];
  g.axis = x[axis];
  for (int64_t i = axis + 1; i < ndim; ++i) g.inner *= x[i];
  return g;
}

namespace {

bool UsesLength(const Attrs& attrs) { return attrs.op() == "softmax" && attrs.GetBool("use_length", false); }

// With use_length, the lengths have the data's shape without the softmax axis ((1) for 1-D data).
Shape LengthShape(const Attrs& attrs, const Shape& x) {
  const int64_t ndim = static_cast<int64_t>(x.size());
  int64_t axis = attrs.GetInt("axis", -1);
  if (axis < 0) axis += ndim;
  Shape s;
  for (int64_t d = 0; d < ndim; ++d)
    if (d != axis) s.push_back(x[d]);
  if (s.empty()) s.push_back(1);
  return s;
}

class SoftmaxOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs& attrs) const override {
    if (UsesLength(attrs)) return {"data", "length"};
    return {"data"};
  }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, UsesLength(attrs) ? 2 : 1);
    ExpectFloat32(attrs, in);
    const SoftmaxGeometry g = ResolveSoftmax(attrs, in[0].shape);
    if (g.use_length) {
      const Shape want = LengthShape(attrs, in[0].shape);
      Check(in[1].shape == want, Status::kShape,
            attrs.Where() + "length has shape " + ShapeToString(in[1].shape) + ", data " +
                ShapeToString(in[0].shape) + " needs " + ShapeToString(want));
    }
    return {in[0]};
  }
};

// SoftmaxOutput's label only matters for training.
class SoftmaxOutputOp : public SoftmaxOp {
 public:
  std::vector<std::string> InputNames(const Attrs&) const override { return {"data", "label"}; }
  std::vector<int> UnusedInputs(const Attrs&) const override { return {1}; }
};

const OpRegistrar kSoftmax({{"softmax"}, {"SoftmaxActivation"}}, new SoftmaxOp);
const OpRegistrar kSoftmaxOutput({{"SoftmaxOutput", {"Softmax"}}}, new SoftmaxOutputOp);

}  // namespace
}  // namespace qv
