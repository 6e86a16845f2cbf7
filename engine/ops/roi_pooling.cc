#include "ops/roi_pooling.h"

#include <cfloat>

#include "common/error.h"

namespace qv {

RoiPoolingParams RoiPoolingParams::Parse(const Attrs& attrs) {
  RoiPoolingParams p;
  const std::vector<int64_t> size = attrs.GetTuple("pooled_size", {});
  Check(attrs.Has("pooled_size") && attrs.Has("spatial_scale"), Status::kParse,
        attrs.Where() + "pooled_size and spatial_scale are required");
  Check(size.size() == 2 && size[0] > 0 && size[1] > 0, Status::kParse,
        attrs.Where() + "pooled_size must be (height, width), both positive, got '" +
            attrs.GetString("pooled_size", "") + "'");
  p.pooled_h = size[0];
  p.pooled_w = size[1];
  p.spatial_scale = static_cast<float>(attrs.GetFloat("spatial_scale", 1.0));
  Check(p.spatial_scale >= 0.f && p.spatial_scale <= 1.f, Status::kParse,
        attrs.Where() + "spatial_scale must be between 0 and 1, as MXNet requires, got " +
            std::to_string(p.spatial_scale));
  return p;
}

void RoiPoolOne(const RoiPoolingParams& p, const float* data, int64_t batch, int64_t channels, int64_t height,
                int64_t width, const float* roi, int64_t c0, int64_t c1, float* out) {
  const RoiPoolingWindow r = RoiPoolingWindowOf(roi, p.spatial_scale, p.pooled_h, p.pooled_w, batch);
  const int64_t bins = p.pooled_h * p.pooled_w;
  for (int64_t c = c0; c < c1; ++c) {
    const float* map = r.image < 0 ? nullptr : data + (r.image * channels + c) * height * width;
    float* y = out + c * bins;
    for (int64_t ph = 0; ph < p.pooled_h; ++ph)
      for (int64_t pw = 0; pw < p.pooled_w; ++pw) {
        int64_t h0, h1, w0, w1;
        RoiPoolingBin(r, ph, pw, height, width, &h0, &h1, &w0, &w1);
        if (!map || h1 <= h0 || w1 <= w0) {
          y[ph * p.pooled_w + pw] = 0.f;
          continue;
        }
        float best = -FLT_MAX;
        for (int64_t h = h0; h < h1; ++h)
          for (int64_t w = w0; w < w1; ++w)
            if (map[h * width + w] > best) best = map[h * width + w];
        y[ph * p.pooled_w + pw] = best;
      }
  }
}

namespace {

class RoiPoolingOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs&) const override { return {"data", "rois"}; }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 2);
    ExpectFloat32(attrs, in);
    const RoiPoolingParams p = RoiPoolingParams::Parse(attrs);
    ExpectNdim(attrs, in[0], "data", 4);
    ExpectNdim(attrs, in[1], "rois", 2);
    Check(in[1].shape[1] == 5, Status::kShape,
          attrs.Where() + "rois must be (R, 5) rows [batch index, x1, y1, x2, y2], got " + ShapeToString(in[1].shape));
    return {{{in[1].shape[0], in[0].shape[1], p.pooled_h, p.pooled_w}, DType::kFloat32}};
  }
};

const OpRegistrar kRegister({{"ROIPooling", {"_npx_roi_pooling"}}}, new RoiPoolingOp);

}  // namespace
}  // namespace qv
