#include "ops/elemwise_binary.h"

#include <map>

#include "common/error.h"

namespace qv {
namespace {

// Every operator with its arithmetic.
const std::map<std::string, BinaryOp>& Names() {
  static const auto* names = new std::map<std::string, BinaryOp>{
      {"elemwise_add", BinaryOp::kAdd}, {"broadcast_add", BinaryOp::kAdd}, {"elemwise_sub", BinaryOp::kSub},
      {"broadcast_sub", BinaryOp::kSub}, {"elemwise_mul", BinaryOp::kMul}, {"broadcast_mul", BinaryOp::kMul},
      {"elemwise_div", BinaryOp::kDiv}, {"broadcast_div", BinaryOp::kDiv},
  };
  return *names;
}

// elemwise_* and their aliases: equal shapes.
class ElemwiseOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs&) const override { return {"lhs", "rhs"}; }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 2);
    ExpectFloat32(attrs, in);
    Check(in[0].shape == in[1].shape, Status::kShape,
          attrs.Where() + "shapes differ: " + ShapeToString(in[0].shape) + " and " + ShapeToString(in[1].shape));
    return {in[0]};
  }
};

// broadcast_*: numpy broadcasting (trailing axes aligned; size-1 axes stretch).
class BroadcastOp : public OpDef {
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
      Check(da == db || da == 1 || db == 1, Status::kShape,
            attrs.Where() + "cannot broadcast " + ShapeToString(a) + " with " + ShapeToString(b));
      out[i] = da == 1 ? db : da;
    }
    return {{out, DType::kFloat32}};
  }
};

const OpRegistrar kElemwise({{"elemwise_add", {"_Plus", "_plus", "_add"}},
                             {"elemwise_sub", {"_Minus", "_minus", "_sub"}},
                             {"elemwise_mul", {"_Mul", "_mul"}},
                             {"elemwise_div", {"_Div", "_div"}}},
                            new ElemwiseOp);
const OpRegistrar kBroadcast({{"broadcast_add", {"broadcast_plus"}},
                              {"broadcast_sub", {"broadcast_minus"}},
                              {"broadcast_mul"},
                              {"broadcast_div"}},
                             new BroadcastOp);

}  // namespace

BinaryOp BinaryOpOf(const std::string& op) {
  auto it = Names().find(op);
  Check(it != Names().end(), Status::kInternal, "'" + op + "' is not a binary arithmetic operator");
  return it->second;
}

}  // namespace qv
