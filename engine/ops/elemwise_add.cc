#include "common/error.h"
#include "ops/op.h"

namespace qv {
namespace {

// elemwise_add and its aliases: equal shapes.
class ElemwiseAddOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs&) const override { return {"lhs", "rhs"}; }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 2);
    ExpectFloat32(attrs, in);
    Check(in[0].shape == in[1].shape, QV_ERR_SHAPE,
          attrs.Where() + "shapes differ: " + ShapeToString(in[0].shape) + " and " + ShapeToString(in[1].shape));
    return {in[0]};
  }
};

// broadcast_add: numpy broadcasting (trailing axes aligned; size-1 axes stretch).
class BroadcastAddOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs&) const override { return {"lhs", "rhs"}; }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 2);
    ExpectFloat32(attrs, in);
    const Shape& a = in[0].shape;
    const Shape& b = in[1].shape;
    Shape out(std::max(a.size(), b.size()), 1);
    for (size_t i = 0; i < out.size(); ++i) {
      const int64_t da = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
      const int64_t db = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
      Check(da == db || da == 1 || db == 1, QV_ERR_SHAPE,
            attrs.Where() + "cannot broadcast " + ShapeToString(a) + " with " + ShapeToString(b));
      out[i] = da == 1 ? db : da;
    }
    return {{out, DType::kFloat32}};
  }
};

const OpRegistrar kElemwise({"elemwise_add", "_Plus", "_plus", "_add"}, new ElemwiseAddOp);
const OpRegistrar kBroadcast({"broadcast_add", "broadcast_plus"}, new BroadcastAddOp);

}  // namespace
}  // namespace qv
