#include "common/error.h"
#include "ops/detection.h"

namespace qv {
namespace {

BoxFormat ParseFormat(const Attrs& attrs, const char* key, const char* fallback) {
  const std::string f = attrs.GetString(key, fallback);
  if (f == "corner") return BoxFormat::kCorner;
  if (f == "center") return BoxFormat::kCenter;
  throw Error(Status::kParse, attrs.Where() + key + " must be 'corner' or 'center', got '" + f + "'");
}

class BoxDecodeOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs&) const override { return {"data", "anchors"}; }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 2);
    ExpectFloat32(attrs, in);
    BoxDecodeParams::Parse(attrs);
    const Shape &x = in[0].shape, &a = in[1].shape;
    Check(x.size() == 3 && x[2] == 4, Status::kShape, attrs.Where() + "data must be (batch, boxes, 4), got " + ShapeToString(x));
    Check(a.size() == 3 && a[0] == 1 && a[1] == x[1] && a[2] == 4, Status::kShape,
          attrs.Where() + "anchors must be (1, " + std::to_string(x[1]) + ", 4) for data " + ShapeToString(x) + ", got " +
              ShapeToString(a));
    return {in[0]};
  }
};

class BoxNmsOp : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 1);
    ExpectFloat32(attrs, in);
    const Shape& x = in[0].shape;
    Check(x.size() >= 2 && ElementCount(x) > 0, Status::kShape,
          attrs.Where() + "data must be a non-empty (..., boxes, width), got " + ShapeToString(x));
    BoxNmsParams::Parse(attrs, x.back());
    return {in[0]};
  }
};

const OpRegistrar kBoxDecode({{"_contrib_box_decode"}}, new BoxDecodeOp);
const OpRegistrar kBoxNms({{"_contrib_box_nms", {"_contrib_box_non_maximum_suppression"}}}, new BoxNmsOp);

}  // namespace

BoxDecodeParams BoxDecodeParams::Parse(const Attrs& attrs) {
  BoxDecodeParams p;
  for (int i = 0; i < 4; ++i) p.std[i] = static_cast<float>(attrs.GetFloat("std" + std::to_string(i), 1.0));
  p.clip = static_cast<float>(attrs.GetFloat("clip", -1.0));
  p.anchor_format = ParseFormat(attrs, "format", "center");
  return p;
}

BoxNmsParams BoxNmsParams::Parse(const Attrs& attrs, int64_t width) {
  BoxNmsParams p;
  p.overlap_thresh = static_cast<float>(attrs.GetFloat("overlap_thresh", 0.5));
  p.valid_thresh = static_cast<float>(attrs.GetFloat("valid_thresh", 0));
  p.topk = attrs.GetInt("topk", -1);
  p.coord_start = attrs.GetInt("coord_start", 2);
  p.score_index = attrs.GetInt("score_index", 1);
  p.id_index = attrs.GetInt("id_index", -1);
  p.background_id = attrs.GetInt("background_id", -1);
  p.force_suppress = attrs.GetBool("force_suppress", false);
  p.in_format = ParseFormat(attrs, "in_format", "corner");
  p.out_format = ParseFormat(attrs, "out_format", "corner");
  const std::string w = std::to_string(width);
  const bool coords_fit = p.coord_start >= 0 && p.coord_start + 4 <= width;
  Check(coords_fit, Status::kShape, attrs.Where() + "coord_start " + std::to_string(p.coord_start) +
                                      " leaves no room for 4 coordinates in rows of width " + w);
  auto outside_coords = [&](int64_t i) { return i < p.coord_start || i >= p.coord_start + 4; };
  Check(p.score_index >= 0 && p.score_index < width && outside_coords(p.score_index), Status::kShape,
        attrs.Where() + "score_index " + std::to_string(p.score_index) + " is outside rows of width " + w +
            " or overlaps the coordinates");
  if (p.id_index >= 0)
    Check(p.id_index < width && outside_coords(p.id_index) && p.id_index != p.score_index, Status::kShape,
          attrs.Where() + "id_index " + std::to_string(p.id_index) + " is outside rows of width " + w +
              " or overlaps the score or the coordinates");
  return p;
}

}  // namespace qv
