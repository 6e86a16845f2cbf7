#include <map>

#include "common/error.h"
#include "ops/unary_math.h"
#include "ops/op.h"

namespace qv {
namespace {

struct MathInfo {
  UnaryMath f;
  bool keeps_zero;
};

const std::map<std::string, MathInfo>& Functions() {
  using U = UnaryMath;
  static const auto* functions = new std::map<std::string, MathInfo>{
      {"exp", {U::kExp, false}},       {"expm1", {U::kExpm1, true}},   {"log", {U::kLog, false}},
      {"log2", {U::kLog2, false}},     {"log10", {U::kLog10, false}},  {"log1p", {U::kLog1p, true}},
      {"sqrt", {U::kSqrt, true}},      {"rsqrt", {U::kRsqrt, false}},  {"cbrt", {U::kCbrt, true}},
      {"square", {U::kSquare, true}},  {"reciprocal", {U::kReciprocal, false}}, {"abs", {U::kAbs, true}},
      {"sign", {U::kSign, true}},      {"negative", {U::kNegative, true}}, {"floor", {U::kFloor, true}},
      {"ceil", {U::kCeil, true}},      {"round", {U::kRound, true}},   {"rint", {U::kRint, true}},
      {"trunc", {U::kTrunc, true}},    {"fix", {U::kFix, true}},       {"sin", {U::kSin, true}},
      {"cos", {U::kCos, false}},       {"tan", {U::kTan, true}},       {"tanh", {U::kTanh, true}},
      {"erf", {U::kErf, true}},
  };
  return *functions;
}

const MathInfo& Find(const std::string& op) {
  auto it = Functions().find(op);
  Check(it != Functions().end(), Status::kInternal, "'" + op + "' is not an element-wise math function");
  return it->second;
}

class ElemwiseUnaryOp : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 1);
    ExpectFloat32(attrs, in);
    return {in[0]};
  }
};

const OpRegistrar kRegister({{"exp"}, {"expm1"}, {"log"}, {"log2"}, {"log10"}, {"log1p"}, {"sqrt"}, {"rsqrt"},
                             {"cbrt"}, {"square"}, {"reciprocal"}, {"abs"}, {"sign"}, {"negative"}, {"floor"},
                             {"ceil"}, {"round"}, {"rint"}, {"trunc"}, {"fix"}, {"sin"}, {"cos"}, {"tan"},
                             {"tanh"}, {"erf"}},
                            new ElemwiseUnaryOp);

}  // namespace

UnaryMath UnaryMathOf(const std::string& op) { return Find(op).f; }

bool KeepsZero(UnaryMath f) {
  for (const auto& [name, info] : Functions())
    if (info.f == f) return info.keeps_zero;
  return false;
}

}  // namespace qv
