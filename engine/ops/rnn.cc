#include "ops/rnn.h"

#include "common/error.h"

namespace qv {

RnnParams RnnParams::Parse(const Attrs& attrs) {
  RnnParams p;
  const std::string mode = attrs.Require("mode");
  if (mode == "lstm") p.mode = RnnMode::kLstm;
  else if (mode == "gru") p.mode = RnnMode::kGru;
  else if (mode == "rnn_relu") p.mode = RnnMode::kRnnRelu;
  else if (mode == "rnn_tanh") p.mode = RnnMode::kRnnTanh;
  else throw Error(Status::kParse, attrs.Where() + "mode '" + mode + "' is not one of lstm, gru, rnn_relu, rnn_tanh");
  p.layers = attrs.RequireInt("num_layers");
  Check(p.layers >= 1 && p.layers <= 1024, Status::kParse,
        attrs.Where() + "num_layers is " + std::to_string(p.layers) + ", it must be between 1 and 1024");
  p.hidden = attrs.RequireInt("state_size");
  Check(p.hidden >= 1 && p.hidden <= (int64_t{1} << 24), Status::kParse,
        attrs.Where() + "state_size is " + std::to_string(p.hidden) + ", it must be between 1 and 2^24");
  p.directions = attrs.GetBool("bidirectional", false) ? 2 : 1;
  p.state_outputs = attrs.GetBool("state_outputs", false);
  p.zero_begin_state = attrs.GetBool(kRnnZeroBeginState, false);
  // `p`, the dropout between layers, is for training: inference ignores it, as MXNet does.
  const auto unset = [&](const char* key) {
    const std::string v = attrs.GetString(key, "None");
    Check(v == "None", Status::kUnsupported, attrs.Where() + key + "=" + v + " is not supported");
  };
  unset("projection_size");
  unset("lstm_state_clip_min");
  unset("lstm_state_clip_max");
  Check(!attrs.GetBool("use_sequence_length", false), Status::kUnsupported,
        attrs.Where() + "use_sequence_length=True is not supported");
  return p;
}

int64_t RnnParams::ParamCount(int64_t input_size) const {
  int64_t n = 0;
  for (int64_t l = 0; l < layers; ++l)
    n += directions * gates() * hidden * (LayerInput(l, input_size) + hidden + 2);
  return n;
}

RnnWeightOffsets RnnOffsets(const RnnParams& p, int64_t input_size, int64_t layer, int64_t direction) {
  const int64_t gh = p.gates() * p.hidden;
  int64_t weights = 0;
  for (int64_t l = 0; l < layer; ++l) weights += p.directions * gh * (p.LayerInput(l, input_size) + p.hidden);
  weights += direction * gh * (p.LayerInput(layer, input_size) + p.hidden);
  int64_t all_weights = 0;
  for (int64_t l = 0; l < p.layers; ++l) all_weights += p.directions * gh * (p.LayerInput(l, input_size) + p.hidden);
  RnnWeightOffsets o;
  o.wx = weights;
  o.wh = weights + gh * p.LayerInput(layer, input_size);
  o.bx = all_weights + (layer * p.directions + direction) * 2 * gh;
  o.bh = o.bx + gh;
  return o;
}

namespace {

class RnnOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs& attrs) const override {
    const RnnParams p = RnnParams::Parse(attrs);
    if (p.zero_begin_state) return {"data", "parameters"};
    if (p.has_cell()) return {"data", "parameters", "state", "state_cell"};
    return {"data", "parameters", "state"};
  }
  std::vector<int> ParamInputs(const Attrs&) const override { return {1}; }
  int NumOutputs(const Attrs& attrs) const override {
    const RnnParams p = RnnParams::Parse(attrs);
    return !p.state_outputs ? 1 : p.has_cell() ? 3 : 2;
  }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    const RnnParams p = RnnParams::Parse(attrs);
    const auto names = InputNames(attrs);
    ExpectInputs(attrs, in, names.size());
    ExpectFloat32(attrs, in);
    ExpectNdim(attrs, in[0], "data", 3);
    const Shape& x = in[0].shape;
    ExpectParamShape(attrs, "parameters", in[1].shape, {p.ParamCount(x[2])});
    const Shape state = {p.layers * p.directions, x[1], p.hidden};
    for (size_t i = 2; i < in.size(); ++i)
      Check(in[i].shape == state, Status::kShape,
            attrs.Where() + names[i] + " has shape " + ShapeToString(in[i].shape) + ", expected " +
                ShapeToString(state) + " (layers x directions, batch, state_size)");
    std::vector<TensorType> out = {{{x[0], x[1], p.directions * p.hidden}, DType::kFloat32}};
    for (int i = 1; i < NumOutputs(attrs); ++i) out.push_back({state, DType::kFloat32});
    return out;
  }
};

const OpRegistrar kRegister({{"RNN"}}, new RnnOp);

}  // namespace
}  // namespace qv
