#include "ops/elemwise_binary.h"

#include <map>

#include "common/error.h"
#include "ops/op_families.h"

namespace qv {
namespace {

// Every operator with its function.
const std::map<std::string, BinaryMath>& Names() {
  using B = BinaryMath;
  static const auto* names = new std::map<std::string, BinaryMath>{
      {"elemwise_add", B::kAdd},          {"broadcast_add", B::kAdd},
      {"elemwise_sub", B::kSub},          {"broadcast_sub", B::kSub},
      {"elemwise_mul", B::kMul},          {"broadcast_mul", B::kMul},
      {"elemwise_div", B::kDiv},          {"broadcast_div", B::kDiv},
      {"_maximum", B::kMaximum},          {"broadcast_maximum", B::kMaximum},
      {"_minimum", B::kMinimum},          {"broadcast_minimum", B::kMinimum},
      {"_power", B::kPower},              {"broadcast_power", B::kPower},
      {"_mod", B::kMod},                  {"broadcast_mod", B::kMod},
      {"_equal", B::kEqual},              {"broadcast_equal", B::kEqual},
      {"_not_equal", B::kNotEqual},       {"broadcast_not_equal", B::kNotEqual},
      {"_greater", B::kGreater},          {"broadcast_greater", B::kGreater},
      {"_greater_equal", B::kGreaterEqual}, {"broadcast_greater_equal", B::kGreaterEqual},
      {"_lesser", B::kLesser},            {"broadcast_lesser", B::kLesser},
      {"_lesser_equal", B::kLesserEqual}, {"broadcast_lesser_equal", B::kLesserEqual},
  };
  return *names;
}

// MXNet 1.9.1 gives these their inputs' type; on whole numbers Quiver's float32 arithmetic gives the
// integer result, except for a division (truncated by the integer-division pass) and a power (left
// floating: a negative exponent would need its own rounding).
OpTraits BinaryTraits(const Attrs& attrs, bool same_shape) {
  OpTraits t;
  const BinaryMath f = BinaryMathOf(attrs.op());
  if (f != BinaryMath::kPower) t.output_dtypes = {OutputDType::kOfInputs};
  t.integer_quotient = f == BinaryMath::kDiv;
  t.elementwise = same_shape;
  return t;
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
  OpTraits Traits(const Attrs& attrs) const override { return BinaryTraits(attrs, true); }
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
  OpTraits Traits(const Attrs& attrs) const override { return BinaryTraits(attrs, false); }
};

const std::vector<OpNames>& ElemwiseNames() {
  static const auto* names = new std::vector<OpNames>{
      {"elemwise_add", {"_Plus", "_plus", "_add"}},
      {"elemwise_sub", {"_Minus", "_minus", "_sub"}},
      {"elemwise_mul", {"_Mul", "_mul"}},
      {"elemwise_div", {"_Div", "_div"}},
      {"_maximum", {"_Maximum"}},
      {"_minimum", {"_Minimum"}},
      {"_power", {"_Power"}},
      {"_mod", {"_Mod"}},
      {"_equal"},
      {"_not_equal"},
      {"_greater"},
      {"_greater_equal"},
      {"_lesser"},
      {"_lesser_equal"}
  };
  return *names;
}

const std::vector<OpNames>& BroadcastNames() {
  static const auto* names = new std::vector<OpNames>{
      {"broadcast_add", {"broadcast_plus"}},
      {"broadcast_sub", {"broadcast_minus"}},
      {"broadcast_mul"},
      {"broadcast_div"},
      {"broadcast_maximum"},
      {"broadcast_minimum"},
      {"broadcast_power"},
      {"broadcast_mod"},
      {"broadcast_equal"},
      {"broadcast_not_equal"},
      {"broadcast_greater"},
      {"broadcast_greater_equal"},
      {"broadcast_lesser"},
      {"broadcast_lesser_equal"}
  };
  return *names;
}

const OpRegistrar kElemwise(ElemwiseNames(), new ElemwiseOp);
const OpRegistrar kBroadcast(BroadcastNames(), new BroadcastOp);

}  // namespace

const std::vector<std::string>& BinaryOps() {
  static const auto* ops = [] {
    auto* names = new std::vector<std::string>(NamesOf(ElemwiseNames()));
    for (const std::string& name : NamesOf(BroadcastNames())) names->push_back(name);
    return names;
  }();
  return *ops;
}

BinaryMath BinaryMathOf(const std::string& op) {
  auto it = Names().find(op);
  Check(it != Names().end(), Status::kInternal, "'" + op + "' is not a binary element-wise operator");
  return it->second;
}

}  // namespace qv
