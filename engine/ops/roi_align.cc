#include "ops/roi_align.h"

#include "common/error.h"
#include "ops/roi_pooling.h"

namespace qv {

RoiAlignGeometry ResolveRoiAlign(const Attrs& attrs, const Shape& data, const Shape& rois) {
  Check(data.size() == 4, Status::kShape, attrs.Where() + "data must be 4-D (NCHW), got " + ShapeToString(data));
  Check(rois.size() == 2 && rois[1] == 5, Status::kShape,
        attrs.Where() + "rois must be (R, 5) rows of (image, x1, y1, x2, y2), got " + ShapeToString(rois));
  const RoiPoolingParams window = RoiPoolingParams::Parse(attrs);
  RoiAlignGeometry g;
  g.rois = rois[0];
  g.batch = data[0];
  g.height = data[2];
  g.width = data[3];
  g.pooled_h = window.pooled_h;
  g.pooled_w = window.pooled_w;
  g.spatial_scale = window.spatial_scale;
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
  switch (RoiFaultOf(g, roi)) {
    case RoiFault::kNone: return;
    case RoiFault::kNotFinite: throw Error(Status::kInvalidArgument, which + " has a value that is not finite");
    case RoiFault::kPastBatch:
      throw Error(Status::kInvalidArgument, which + " names image " + std::to_string(ResolveRoiBins(g, roi).image) +
                                                " of a batch of " + std::to_string(g.batch));
    case RoiFault::kNoExtent:
      throw Error(Status::kInvalidArgument, which + " has no extent (aligned ROIs must have x2 > x1 and y2 > y1)");
  }
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
