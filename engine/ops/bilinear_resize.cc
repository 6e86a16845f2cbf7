#include "ops/bilinear_resize.h"

#include <cmath>
#include <limits>
#include <optional>

#include "common/error.h"

namespace qv {
namespace {

const char* const kModes = "size, odd_scale, like, to_even_down, to_even_up, to_odd_down, to_odd_up";

std::optional<float> OptionalFloat(const Attrs& attrs, const char* key) {
  if (!attrs.Has(key) || attrs.GetString(key, "") == "None") return std::nullopt;
  return static_cast<float>(attrs.GetFloat(key, 0));
}

float RequireScale(const Attrs& attrs, const std::optional<float>& scale, const char* key, const std::string& why) {
  Check(scale.has_value(), Status::kParse, attrs.Where() + key + " is required " + why);
  Check(*scale > 0 && std::isfinite(*scale), Status::kParse,
        attrs.Where() + key + " must be a positive number, got " + attrs.GetString(key, ""));
  return *scale;
}

// MXNet multiplies a float scale by the dimension in float and truncates toward zero.
int64_t Scaled(float scale, int64_t dim) { return static_cast<int64_t>(scale * static_cast<float>(dim)); }

}  // namespace

BilinearResizeGeometry ResolveBilinearResize(const Attrs& attrs, const std::vector<Shape>& in) {
  const Shape& x = in.at(0);
  Check(x.size() == 4, Status::kShape, attrs.Where() + "data must be 4-D (NCHW), got " + ShapeToString(x));
  const std::string mode = attrs.GetString("mode", "size");
  BilinearResizeGeometry g;
  g.planes = x[0] * x[1];
  g.h = x[2];
  g.w = x[3];
  g.align_corners = attrs.GetBool("align_corners", true);
  const auto scale_h = OptionalFloat(attrs, "scale_height"), scale_w = OptionalFloat(attrs, "scale_width");
  auto even = [](int64_t d) { return d % 2 == 0; };
  if (mode == "size") {
    // MXNet 1.9.1 decides both sides on scale_height: with it, scale_width is required too; without
    // it, scale_width is ignored and `width` applies.
    if (scale_h) {
      const std::string why = "when scale_height is given (mode 'size')";
      g.oh = Scaled(RequireScale(attrs, scale_h, "scale_height", why), x[2]);
      g.ow = Scaled(RequireScale(attrs, scale_w, "scale_width", why), x[3]);
    } else {
      g.oh = attrs.GetInt("height", 1);
      g.ow = attrs.GetInt("width", 1);
      Check(g.oh >= 1 && g.ow >= 1, Status::kParse,
            attrs.Where() + "height and width must be at least 1, got " + std::to_string(g.oh) + " x " +
                std::to_string(g.ow));
    }
  } else if (mode == "odd_scale") {
    const std::string why = "in mode 'odd_scale'";
    const float sh = RequireScale(attrs, scale_h, "scale_height", why);
    const float sw = RequireScale(attrs, scale_w, "scale_width", why);
    g.oh = even(x[2]) ? Scaled(sh, x[2]) : Scaled(sh, x[2] - 1) + 1;
    g.ow = even(x[3]) ? Scaled(sw, x[3]) : Scaled(sw, x[3] - 1) + 1;
  } else if (mode == "like") {
    Check(in.size() == 2 && in[1].size() == 4, Status::kShape,
          attrs.Where() + "mode 'like' needs a 4-D second input, got " +
              (in.size() == 2 ? ShapeToString(in[1]) : std::string("none")));
    g.like = true;
    g.oh = in[1][2];
    g.ow = in[1][3];
  } else if (mode == "to_even_down") {
    g.oh = even(x[2]) ? x[2] : x[2] - 1;
    g.ow = even(x[3]) ? x[3] : x[3] - 1;
  } else if (mode == "to_even_up") {
    g.oh = even(x[2]) ? x[2] : x[2] + 1;
    g.ow = even(x[3]) ? x[3] : x[3] + 1;
  } else if (mode == "to_odd_down") {
    g.oh = even(x[2]) ? x[2] - 1 : x[2];
    g.ow = even(x[3]) ? x[3] - 1 : x[3];
  } else if (mode == "to_odd_up") {
    g.oh = even(x[2]) ? x[2] + 1 : x[2];
    g.ow = even(x[3]) ? x[3] + 1 : x[3];
  } else {
    throw Error(Status::kUnsupported, attrs.Where() + "mode '" + mode + "' is not supported (" + kModes + ")");
  }
  // MXNet keeps the output size in 16 bits; larger sizes would wrap there, and are refused here.
  const int64_t limit = std::numeric_limits<int16_t>::max();
  Check(g.oh >= 1 && g.ow >= 1 && g.oh <= limit && g.ow <= limit, Status::kShape,
        attrs.Where() + "mode '" + mode + "' gives an output of " + std::to_string(g.oh) + " x " +
            std::to_string(g.ow) + " from " + ShapeToString(x) + " (each side must be 1 to 32767)");
  Check(g.h >= 1 && g.w >= 1, Status::kShape, attrs.Where() + "data has an empty plane: " + ShapeToString(x));
  return g;
}

float BilinearScale(int64_t in, int64_t out, bool align_corners) {
  if (out <= 1) return 0.f;
  return align_corners ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                       : static_cast<float>(in) / static_cast<float>(out);
}

BilinearTap BilinearSource(int64_t i, int64_t in, int64_t out, bool align_corners) {
  // As MXNet's area_pixel_compute_scale / _source_index: a float scale; the half-pixel position is
  // computed in double and rounded to float once.
  const float scale = BilinearScale(in, out, align_corners);
  float src;
  if (align_corners) {
    src = scale * static_cast<float>(i);
  } else {
    src = static_cast<float>(scale * (i + 0.5) - 0.5);
    if (src < 0) src = 0;
  }
  BilinearTap tap;
  tap.index = static_cast<int64_t>(src);
  tap.step = tap.index < in - 1 ? 1 : 0;
  tap.lambda = src - static_cast<float>(tap.index);
  return tap;
}

namespace {

class BilinearResizeOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs& attrs) const override {
    if (attrs.GetString("mode", "size") == "like") return {"data", "like"};
    return {"data"};
  }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, InputNames(attrs).size());
    ExpectFloat32(attrs, {in[0]});
    std::vector<Shape> shapes;
    for (const TensorType& t : in) shapes.push_back(t.shape);
    const BilinearResizeGeometry g = ResolveBilinearResize(attrs, shapes);
    return {TensorType{{in[0].shape[0], in[0].shape[1], g.oh, g.ow}, in[0].dtype}};
  }
};

const OpRegistrar kRegister({{"_contrib_BilinearResize2D"}}, new BilinearResizeOp);

}  // namespace
}  // namespace qv
