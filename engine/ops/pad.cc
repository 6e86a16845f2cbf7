#include "ops/pad.h"

#include "common/error.h"

namespace qv {

PadParams PadParams::Parse(const Attrs& attrs) {
  PadParams p;
  const std::string mode = attrs.Require("mode");
  Check(mode == "constant" || mode == "edge" || mode == "reflect", Status::kParse,
        attrs.Where() + "mode '" + mode + "' is not constant, edge or reflect");
  p.mode = mode == "constant" ? kConstant : mode == "edge" ? kEdge : kReflect;
  p.pad_width = attrs.GetTuple("pad_width", {});
  Check(!p.pad_width.empty(), Status::kParse, attrs.Where() + "pad_width is required");
  p.constant_value = static_cast<float>(attrs.GetFloat("constant_value", 0.0));
  return p;
}

Shape PadParams::Resolve(const Attrs& attrs, const Shape& data) const {
  Check(data.size() == 4 || data.size() == 5, Status::kShape,
        attrs.Where() + "only 4-D and 5-D data can be padded, got " + ShapeToString(data));
  Check(pad_width.size() == 2 * data.size(), Status::kShape,
        attrs.Where() + "pad_width " + ShapeToString(pad_width) + " needs 2 values per axis of data " +
            ShapeToString(data));
  Check(pad_width[0] == 0 && pad_width[1] == 0 && pad_width[2] == 0 && pad_width[3] == 0, Status::kShape,
        attrs.Where() + "pad_width " + ShapeToString(pad_width) + " pads the batch or channel axis; only the " +
            "spatial axes can be padded");
  Shape out = data;
  for (size_t d = 2; d < data.size(); ++d) {
    const int64_t before = pad_width[2 * d], after = pad_width[2 * d + 1];
    Check(before >= 0 && after >= 0, Status::kShape,
          attrs.Where() + "pad_width " + ShapeToString(pad_width) + " has a negative entry");
    Check(mode != kReflect || (before < data[d] && after < data[d]), Status::kShape,
          attrs.Where() + "reflect padding " + ShapeToString(pad_width) + " must be smaller than axis " +
              std::to_string(d) + " of data " + ShapeToString(data));
    out[d] += before + after;
  }
  return out;
}

int64_t PadParams::Source(int64_t i, int64_t size, int64_t before) const {
  const int64_t at = i - before;
  if (at >= 0 && at < size) return at;
  switch (mode) {
    case kConstant: return -1;
    case kEdge: return at < 0 ? 0 : size - 1;
    case kReflect: return at < 0 ? -at : 2 * (size - 1) - at;  // one reflection: pads are below the size
  }
  return -1;
}

namespace {

class PadOp : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 1);
    ExpectFloat32(attrs, in);
    return {{PadParams::Parse(attrs).Resolve(attrs, in[0].shape), DType::kFloat32}};
  }
};

const OpRegistrar kRegister({{"Pad", {"pad"}}}, new PadOp);

}  // namespace
}  // namespace qv
