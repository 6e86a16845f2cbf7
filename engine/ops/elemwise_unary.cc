#include <map>

#include "common/error.h"
#include "ops/op.h"
#include "ops/op_families.h"
#include "ops/unary_math.h"

namespace qv {
namespace {

struct MathInfo {
  UnaryMath f;
  bool keeps_zero;
  // MXNet 1.9.1 keeps an integer input's type and Quiver's float32 result on a whole number is the
  // same whole number (the other functions MXNet would compute in the integer type, truncating).
  bool whole_on_integers = false;
};

const std::map<std::string, MathInfo>& Functions() {
  using U = UnaryMath;
  static const auto* functions = new std::map<std::string, MathInfo>{
      {"exp", {U::kExp, false}},           {"expm1", {U::kExpm1, true}},        {"log", {U::kLog, false}},
      {"log2", {U::kLog2, false}},         {"log10", {U::kLog10, false}},       {"log1p", {U::kLog1p, true}},
      {"sqrt", {U::kSqrt, true}},          {"rsqrt", {U::kRsqrt, false}},       {"cbrt", {U::kCbrt, true}},
      {"square", {U::kSquare, true, true}}, {"reciprocal", {U::kReciprocal, false}}, {"abs", {U::kAbs, true, true}},
      {"sign", {U::kSign, true, true}},    {"negative", {U::kNegative, true, true}}, {"floor", {U::kFloor, true, true}},
      {"ceil", {U::kCeil, true, true}},    {"round", {U::kRound, true, true}},  {"rint", {U::kRint, true, true}},
      {"trunc", {U::kTrunc, true, true}},  {"fix", {U::kFix, true, true}},      {"sin", {U::kSin, true}},
      {"cos", {U::kCos, false}},           {"tan", {U::kTan, true}},            {"tanh", {U::kTanh, true}},
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
  OpTraits Traits(const Attrs& attrs) const override {
    OpTraits t;
    t.elementwise = true;
    if (Find(attrs.op()).whole_on_integers) t.output_dtypes = {OutputDType::kOfInputs};
    return t;
  }
};

const std::vector<OpNames>& MemberNames() {
  static const auto* names = [] {
    auto* members = new std::vector<OpNames>;
    for (const auto& entry : Functions()) members->push_back({entry.first.c_str()});
    return members;
  }();
  return *names;
}

const OpRegistrar kRegister(MemberNames(), new ElemwiseUnaryOp);

}  // namespace

const std::vector<std::string>& UnaryMathOps() {
  static const auto* ops = new std::vector<std::string>(NamesOf(MemberNames()));
  return *ops;
}

UnaryMath UnaryMathOf(const std::string& op) { return Find(op).f; }

bool KeepsZero(UnaryMath f) {
  for (const auto& [name, info] : Functions())
    if (info.f == f) return info.keeps_zero;
  return false;
}

}  // namespace qv
