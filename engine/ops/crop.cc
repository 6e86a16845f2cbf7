// Crop: MXNet's legacy spatial crop of 4-D data (src/operator/crop-inl.h), to `h_w` or to the second
// input's height and width, at `offset` (y, x) or centred.
#include "common/error.h"
#include "ops/shape_ops.h"

namespace qv {

SliceWindow ResolveCrop(const Attrs& attrs, const std::vector<Shape>& inputs) {
  const Shape& x = inputs[0];
  Check(x.size() == 4, Status::kShape,
        attrs.Where() + "data must be 4-D (batch, channels, y, x), got " + ShapeToString(x));
  int64_t h = 0, w = 0;
  if (inputs.size() == 2) {
    const Shape& like = inputs[1];
    Check(like.size() == 4, Status::kShape,
          attrs.Where() + "crop_like must be 4-D (batch, channels, y, x), got " + ShapeToString(like));
    h = like[2], w = like[3];
  } else {
    const std::vector<int64_t> hw = attrs.GetTuple("h_w", {0, 0});
    Check(hw.size() == 2, Status::kParse, attrs.Where() + "h_w must be (height, width)");
    h = hw[0], w = hw[1];
  }
  Check(h >= 1 && w >= 1 && h <= x[2] && w <= x[3], Status::kShape,
        attrs.Where() + "cannot crop " + std::to_string(h) + " x " + std::to_string(w) + " out of " + ShapeToString(x));
  int64_t oy = (x[2] - h) / 2, ox = (x[3] - w) / 2;
  if (!attrs.GetBool("center_crop", false)) {
    const std::vector<int64_t> offset = attrs.GetTuple("offset", {0, 0});
    Check(offset.size() == 2, Status::kParse, attrs.Where() + "offset must be (y, x)");
    oy = offset[0], ox = offset[1];
    Check(oy >= 0 && ox >= 0 && oy <= x[2] - h && ox <= x[3] - w, Status::kShape,
          attrs.Where() + "offset (" + std::to_string(oy) + ", " + std::to_string(ox) + ") leaves no room for a " +
              std::to_string(h) + " x " + std::to_string(w) + " crop of " + ShapeToString(x));
  }
  return {{x[0], x[1], h, w}, {0, 0, oy, ox}, {1, 1, 1, 1}};
}

namespace {

int64_t CropArgs(const Attrs& attrs) {
  const int64_t n = attrs.RequireInt("num_args");
  Check(n == 1 || n == 2, Status::kParse, attrs.Where() + "num_args must be 1 (h_w) or 2 (crop_like)");
  return n;
}

class CropOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs& attrs) const override {
    if (CropArgs(attrs) == 2) return {"data", "crop_like"};
    return {"data"};
  }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, static_cast<size_t>(CropArgs(attrs)));
    ExpectFloat32(attrs, in);
    std::vector<Shape> shapes;
    for (const TensorType& t : in) shapes.push_back(t.shape);
    return {{ResolveCrop(attrs, shapes).out, in[0].dtype}};
  }
};

const OpRegistrar kRegister({{"Crop"}}, new CropOp);

}  // namespace
}  // namespace qv
