#include "ops/activation.h"

#include "common/error.h"

namespace qv {

ActType ParseActType(const Attrs& attrs) {
  if (attrs.op() == "relu") return ActType::kRelu;
  if (attrs.op() == "sigmoid") return ActType::kSigmoid;
  const std::string t = attrs.Require("act_type");
  if (t == "relu") return ActType::kRelu;
  if (t == "sigmoid") return ActType::kSigmoid;
  if (t == "tanh") return ActType::kTanh;
  if (t == "softrelu") return ActType::kSoftRelu;
  if (t == "softsign") return ActType::kSoftSign;
  throw Error(Status::kUnsupported, attrs.Where() + "act_type '" + t + "' is not supported");
}

namespace {

class ActivationOp : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ParseActType(attrs);
    ExpectInputs(attrs, in, 1);
    ExpectFloat32(attrs, in);
    return {in[0]};
  }
  OpTraits Traits(const Attrs& attrs) const override {
    OpTraits t;
    t.elementwise = true;
    if (attrs.GetString("act_type", "") == "relu") t.activation = ActivationKind::kRelu;
    return t;
  }
};

// relu(x) and sigmoid(x) are Activation with the act_type implied, and run on its kernels: a
// stand-alone sigmoid computes exactly what Activation(act_type=sigmoid) does.
class ImpliedActivationOp : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 1);
    ExpectFloat32(attrs, in);
    return {in[0]};
  }
  OpTraits Traits(const Attrs& attrs) const override {
    OpTraits t;
    t.elementwise = true;
    if (attrs.op() == "relu") t.activation = ActivationKind::kRelu;
    return t;
  }
};

const OpRegistrar kActivation({{"Activation"}}, new ActivationOp);
const OpRegistrar kImplied({{"relu"}, {"sigmoid"}}, new ImpliedActivationOp);

}  // namespace
}  // namespace qv
