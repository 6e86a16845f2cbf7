#include "ops/scalar_arith.h"

#include <map>

#include "common/error.h"

namespace qv {
namespace {

const std::map<std::string, ScalarArith::Kind>& Names() {
  static const auto* names = new std::map<std::string, ScalarArith::Kind>{
      {"_plus_scalar", ScalarArith::kPlus},     {"_minus_scalar", ScalarArith::kMinus},
      {"_rminus_scalar", ScalarArith::kRMinus}, {"_mul_scalar", ScalarArith::kMul},
      {"_div_scalar", ScalarArith::kDiv},       {"_rdiv_scalar", ScalarArith::kRDiv},
      {"_greater_scalar", ScalarArith::kGreater}, {"_greater_equal_scalar", ScalarArith::kGreaterEqual},
      {"_lesser_scalar", ScalarArith::kLesser},   {"_lesser_equal_scalar", ScalarArith::kLesserEqual},
      {"_equal_scalar", ScalarArith::kEqual},     {"_not_equal_scalar", ScalarArith::kNotEqual},
  };
  return *names;
}

}  // namespace

bool ScalarArith::AsLinear(float* alpha, float* beta) const {
  switch (kind) {
    case kPlus: *alpha = 1.f, *beta = scalar; return true;
    case kMinus: *alpha = 1.f, *beta = -scalar; return true;
    case kRMinus: *alpha = -1.f, *beta = scalar; return true;
    case kMul: *alpha = scalar, *beta = 0.f; return true;
    case kDiv: *alpha = 1.f / scalar, *beta = 0.f; return true;
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
};

const OpRegistrar kRegister({{"_plus_scalar", {"_PlusScalar"}},
                             {"_minus_scalar", {"_MinusScalar"}},
                             {"_rminus_scalar", {"_RMinusScalar"}},
                             {"_mul_scalar", {"_MulScalar"}},
                             {"_div_scalar", {"_DivScalar"}},
                             {"_rdiv_scalar", {"_RDivScalar"}},
                             {"_greater_scalar"},
                             {"_greater_equal_scalar"},
                             {"_lesser_scalar"},
                             {"_lesser_equal_scalar"},
                             {"_equal_scalar"},
                             {"_not_equal_scalar"}},
                            new ScalarArithOp);

}  // namespace

ScalarArith ScalarArith::Parse(const Attrs& attrs) {
  auto it = Names().find(attrs.op());
  Check(it != Names().end(), Status::kInternal, attrs.Where() + "is not a scalar arithmetic operator");
  ScalarArith s;
  s.kind = it->second;
  attrs.Require("scalar");
  s.scalar = static_cast<float>(attrs.GetFloat("scalar", 0));
  return s;
}

}  // namespace qv
