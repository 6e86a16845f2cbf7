#include "ops/roi_align.h"

#include <cmath>

#include "common/error.h"

namespace qv {

RoiAlignGeometry ResolveRoiAlign(const Attrs& attrs, const Shape& data, const Shape& rois) {
  Check(data.size() == 4, Status::kShape, attrs.Where() + "data must be 4-D (NCHW), got " + ShapeToString(data));
  Check(rois.size() == 2 && rois[1] == 5, Status::kShape,
        attrs.Where() + "rois must be (R, 5) rows of (image, x1, y1, x2, y2), got " + ShapeToString(rois));
  const std::vector<int64_t> pooled = attrs.GetTuple("pooled_size", {});
  Check(attrs.Has("pooled_size") && pooled.size() == 2 && pooled[0] > 0 && pooled[1] > 0, Status::kParse,
        attrs.Where() + "pooled_size must be a pair of positive integers (height, width), got '" +
            attrs.GetString("pooled_size", "") + "'");
  RoiAlignGeometry g;
  g.rois = rois[0];
  g.batch = data[0];
  g.height = data[2];
  g.width = data[3];
  g.pooled_h = pooled[0];
  g.pooled_w = pooled[1];
  g.spatial_scale = static_cast<float>(attrs.GetFloat("spatial_scale", -1));
  Check(attrs.Has("spatial_scale") && g.spatial_scale >= 0.f && g.spatial_scale <= 1.f, Status::kParse,
        attrs.Where() + "spatial_scale must be given, between 0 and 1, got '" + attrs.GetString("spatial_scale", "") + "'");
  g.sample_ratio = attrs.GetInt("sample_ratio", -1);
  g.position_sensitive = attrs.GetBool("position_sensitive", false);
  g.aligned = attrs.GetBool("aligned", false);
  Check(g.height > 0 && g.width > 0, Status::kShape, attrs.Where() + "data has an empty plane: " + ShapeToString(data));
  g.channels = data[1];
  if (g.position_sensitive) {
    Check(data[1] % (g.pooled_h * g.pooled_w) == 0, Status::kShape,
          attrs.Where() + "position-sensitive pooling needs channels divisible by pooled height x width (" +
              std::to_string(g.pooled_h * g.pooled_w) + "), got " + ShapeToString(data));
    g.channels = data[1] / (g.pooled_h * g.pooled_w);
  }
  return g;
}

void CheckRoi(const RoiAlignGeometry& g, const float* roi, int64_t index, const std::string& where) {
  const std::string which = where + "ROI " + std::to_string(index);
  for (int k = 0; k < 5; ++k)
    Check(std::isfinite(roi[k]), Status::kInvalidArgument, which + " has a value that is not finite");
  const RoiBins b = ResolveRoiBins(g, roi);
  Check(b.image < g.batch, Status::kInvalidArgument,
        which + " names image " + std::to_string(b.image) + " of a batch of " + std::to_string(g.batch));
  Check(!g.aligned || (b.extent_h > 0.f && b.extent_w > 0.f), Status::kInvalidArgument,
        which + " has no extent (aligned ROIs must have x2 > x1 and y2 > y1)");
}

namespace {

class RoiAlignOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs&) const override { return {"data", "rois"}; }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 2);
    ExpectFloat32(attrs, in);
    const RoiAlignGeometry g = ResolveRoiAlign(attrs, in[0].shape, in[1].shape);
    return {TensorType{{g.rois, g.channels, g.pooled_h, g.pooled_w}, DType::kFloat32}};
  }
};

const OpRegistrar kRegister({{"_contrib_ROIAlign"}}, new RoiAlignOp);

}  // namespace
}  // namespace qv
