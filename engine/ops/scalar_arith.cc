#include "ops/scalar_arith.h"

#include <map>

#include "common/error.h"
#include "ops/op_families.h"

namespace qv {
namespace {

struct Form {
  BinaryMath f;
  bool scalar_first;
};

const std::map<std::string, Form>& Names() {
  using B = BinaryMath;
  static const auto* names = new std::map<std::string, Form>{
      {"_plus_scalar", {B::kAdd, false}},      {"_minus_scalar", {B::kSub, false}},
      {"_rminus_scalar", {B::kSub, true}},     {"_mul_scalar", {B::kMul, false}},
      {"_div_scalar", {B::kDiv, false}},       {"_rdiv_scalar", {B::kDiv, true}},
      {"_maximum_scalar", {B::kMaximum, false}}, {"_minimum_scalar", {B::kMinimum, false}},
      {"_power_scalar", {B::kPower, false}},   {"_rpower_scalar", {B::kPower, true}},
      {"_mod_scalar", {B::kMod, false}},       {"_rmod_scalar", {B::kMod, true}},
      {"_greater_scalar", {B::kGreater, false}}, {"_greater_equal_scalar", {B::kGreaterEqual, false}},
      {"_lesser_scalar", {B::kLesser, false}},   {"_lesser_equal_scalar", {B::kLesserEqual, false}},
      {"_equal_scalar", {B::kEqual, false}},     {"_not_equal_scalar", {B::kNotEqual, false}},
  };
  return *names;
}

}  // namespace

bool ScalarArith::AsLinear(float* alpha, float* beta) const {
  switch (f) {
    case BinaryMath::kAdd: *alpha = 1.f, *beta = scalar; return true;
    case BinaryMath::kSub: *alpha = scalar_first ? -1.f : 1.f, *beta = scalar_first ? scalar : -scalar; return true;
    case BinaryMath::kMul: *alpha = scalar, *beta = 0.f; return true;
    case BinaryMath::kDiv:
      if (scalar_first) return false;
      *alpha = 1.f / scalar, *beta = 0.f;
      return true;
    default: return false;
  }
}

namespace {

class ScalarArithOp : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ScalarArith::Parse(attrs);
    ExpectInputs(attrs, in, 1);
    ExpectFloat32(attrs, in);
    return {in[0]};
  }
  // On an integer tensor MXNet 1.9.1 converts the scalar to the tensor's type first (int32 [2, 3] == 2.5
  // gives [1, 0]) and keeps the type; the powers are left floating (a negative exponent would need its
  // own rounding).
  OpTraits Traits(const Attrs& attrs) const override {
    OpTraits t;
    t.elementwise = true;
    const BinaryMath f = Names().at(attrs.op()).f;
    if (f == BinaryMath::kPower) return t;
    t.output_dtypes = {OutputDType::kOfInputs};
    t.integer_attrs = {"scalar"};
    t.integer_quotient = f == BinaryMath::kDiv;
    return t;
  }
};

const std::vector<OpNames>& MemberNames() {
  static const auto* names = new std::vector<OpNames>{
      {"_plus_scalar", {"_PlusScalar"}},
      {"_minus_scalar", {"_MinusScalar"}},
      {"_rminus_scalar", {"_RMinusScalar"}},
      {"_mul_scalar", {"_MulScalar"}},
      {"_div_scalar", {"_DivScalar"}},
      {"_rdiv_scalar", {"_RDivScalar"}},
      {"_maximum_scalar", {"_MaximumScalar"}},
      {"_minimum_scalar", {"_MinimumScalar"}},
      {"_power_scalar", {"_PowerScalar"}},
      {"_rpower_scalar", {"_RPowerScalar"}},
      {"_mod_scalar", {"_ModScalar"}},
      {"_rmod_scalar", {"_RModScalar"}},
      {"_greater_scalar"},
      {"_greater_equal_scalar"},
      {"_lesser_scalar"},
      {"_lesser_equal_scalar"},
      {"_equal_scalar"},
      {"_not_equal_scalar"}
  };
  return *names;
}

const OpRegistrar kRegister(MemberNames(), new ScalarArithOp);

}  // namespace

const std::vector<std::string>& ScalarArithOps() {
  static const auto* ops = new std::vector<std::string>(NamesOf(MemberNames()));
  return *ops;
}

ScalarArith ScalarArith::Parse(const Attrs& attrs) {
  auto it = Names().find(attrs.op());
  Check(it != Names().end(), Status::kInternal, attrs.Where() + "is not a scalar arithmetic operator");
  ScalarArith s;
  s.f = it->second.f;
  s.scalar_first = it->second.scalar_first;
  attrs.Require("scalar");
  s.scalar = static_cast<float>(attrs.GetFloat("scalar", 0));
  return s;
}

}  // namespace qv
