#include "ops/multibox.h"

#include <algorithm>
#include <cmath>

#include "common/error.h"

namespace qv {

MultiBoxPriorParams MultiBoxPriorParams::Parse(const Attrs& attrs) {
  MultiBoxPriorParams p;
  p.sizes = attrs.GetFloat32Tuple("sizes", {1.0});
  p.ratios = attrs.GetFloat32Tuple("ratios", {1.0});
  p.clip = attrs.GetBool("clip", false);
  const std::vector<float> steps = attrs.GetFloat32Tuple("steps", {-1.0, -1.0});
  const std::vector<float> offsets = attrs.GetFloat32Tuple("offsets", {0.5, 0.5});
  Check(!p.sizes.empty() && !p.ratios.empty(), Status::kParse, attrs.Where() + "sizes and ratios must not be empty");
  for (float r : p.ratios)
    Check(r > 0.f, Status::kParse, attrs.Where() + "ratios must be positive, got " + std::to_string(r));
  Check(steps.size() == 2, Status::kParse, attrs.Where() + "steps must be (step_y, step_x)");
  Check(steps[0] * steps[1] >= 0.f, Status::kParse, attrs.Where() + "steps must be both given or both -1");
  Check(offsets.size() == 2 && offsets[0] >= 0.f && offsets[0] <= 1.f && offsets[1] >= 0.f && offsets[1] <= 1.f,
        Status::kParse, attrs.Where() + "offsets must be (offset_y, offset_x), each in [0, 1]");
  p.step_y = steps[0], p.step_x = steps[1];
  p.offset_y = offsets[0], p.offset_x = offsets[1];
  return p;
}

std::vector<float> MultiBoxPriorAnchors(const MultiBoxPriorParams& p, int64_t height, int64_t width) {
  const int in_h = static_cast<int>(height), in_w = static_cast<int>(width);
  const bool automatic = p.step_y <= 0.f || p.step_x <= 0.f;
  const float step_y = automatic ? 1.f / in_h : p.step_y, step_x = automatic ? 1.f / in_w : p.step_x;
  std::vector<float> out;
  out.reserve(static_cast<size_t>(height * width) * (p.sizes.size() + p.ratios.size() - 1) * 4);
  auto push = [&](float cx, float cy, float w, float h) {
    for (float v : {cx - w, cy - h, cx + w, cy + h}) out.push_back(p.clip ? std::max(0.f, std::min(1.f, v)) : v);
  };
  // The same float operations in the same order as MXNet, so that the anchors agree bit for bit.
  for (int r = 0; r < in_h; ++r) {
    const float cy = (r + p.offset_y) * step_y;
    for (int c = 0; c < in_w; ++c) {
      const float cx = (c + p.offset_x) * step_x;
      const float first_ratio = sqrtf(p.ratios[0]);
      for (float size : p.sizes) push(cx, cy, size * in_h / in_w * first_ratio / 2, size / first_ratio / 2);
      for (size_t j = 1; j < p.ratios.size(); ++j) {
        const float ratio = sqrtf(p.ratios[j]);
        push(cx, cy, p.sizes[0] * in_h / in_w * ratio / 2, p.sizes[0] / ratio / 2);
      }
    }
  }
  return out;
}

MultiBoxDetectionParams MultiBoxDetectionParams::Parse(const Attrs& attrs) {
  MultiBoxDetectionParams p;
  p.clip = attrs.GetBool("clip", true);
  p.threshold = static_cast<float>(attrs.GetFloat("threshold", 0.01));
  p.nms_threshold = static_cast<float>(attrs.GetFloat("nms_threshold", 0.5));
  p.force_suppress = attrs.GetBool("force_suppress", false);
  p.nms_topk = attrs.GetInt("nms_topk", -1);
  const std::vector<float> v = attrs.GetFloat32Tuple("variances", {0.1, 0.1, 0.2, 0.2});
  Check(v.size() == 4, Status::kParse, attrs.Where() + "variances must have 4 entries");
  std::copy(v.begin(), v.end(), p.variances);
  // MXNet 1.9.1 declares background_id but always treats class 0 as the background.
  Check(attrs.GetInt("background_id", 0) == 0, Status::kUnsupported,
        attrs.Where() + "background_id other than 0 (which MXNet 1.9.1 ignores too) is not supported");
  return p;
}

namespace {

// A prediction relative to a corner anchor -> a corner box, clipped to [0, 1] on request.
void Decode(const MultiBoxDetectionParams& p, const float* a, const float* d, float* out) {
  const float aw = a[2] - a[0], ah = a[3] - a[1];
  const float ax = (a[0] + a[2]) / 2.f, ay = (a[1] + a[3]) / 2.f;
  const float ox = d[0] * p.variances[0] * aw + ax, oy = d[1] * p.variances[1] * ah + ay;
  const float ow = std::exp(d[2] * p.variances[2]) * aw / 2, oh = std::exp(d[3] * p.variances[3]) * ah / 2;
  const float box[4] = {ox - ow, oy - oh, ox + ow, oy + oh};
  for (int k = 0; k < 4; ++k) out[k] = p.clip ? std::max(0.f, std::min(1.f, box[k])) : box[k];
}

float Overlap(const float* a, const float* b) {
  const float w = std::max(0.f, std::min(a[2], b[2]) - std::max(a[0], b[0]));
  const float h = std::max(0.f, std::min(a[3], b[3]) - std::max(a[1], b[1]));
  const float i = w * h;
  const float u = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - i;
  return u <= 0.f ? 0.f : i / u;
}

}  // namespace

void MultiBoxDetect(const MultiBoxDetectionParams& p, int64_t classes, int64_t anchors, const float* cls_prob,
                    const float* loc_pred, const float* anchor_boxes, float* out) {
  std::fill(out, out + anchors * 6, -1.f);
  // Each anchor's best non-background class; below the threshold it is background. Kept rows are
  // packed first, in anchor order.
  int64_t valid = 0;
  for (int64_t i = 0; i < anchors; ++i) {
    float score = -1.f;
    int64_t id = 0;
    for (int64_t j = 1; j < classes; ++j) {
      const float v = cls_prob[j * anchors + i];
      if (v > score) score = v, id = j;
    }
    if (id == 0 || score < p.threshold) continue;
    float* row = out + valid++ * 6;
    row[0] = static_cast<float>(id - 1);
    row[1] = score;
    Decode(p, anchor_boxes + i * 4, loc_pred + i * 4, row + 2);
  }
  if (valid < 1 || p.nms_threshold <= 0.f || p.nms_threshold > 1.f) return;
  // Descending score, equal scores in anchor order; beyond nms_topk only the class is cleared (MXNet
  // leaves the rest of those rows as they were before sorting).
  const std::vector<float> packed(out, out + valid * 6);
  std::vector<int64_t> order(static_cast<size_t>(valid));
  for (int64_t i = 0; i < valid; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return packed[a * 6 + 1] > packed[b * 6 + 1]; });
  const int64_t keep = p.nms_topk > 0 && p.nms_topk < valid ? p.nms_topk : valid;
  for (int64_t i = keep; i < valid; ++i) out[i * 6] = -1.f;
  for (int64_t i = 0; i < keep; ++i) std::copy_n(&packed[order[i] * 6], 6, out + i * 6);
  for (int64_t i = 0; i < keep; ++i) {
    if (out[i * 6] < 0) continue;
    for (int64_t j = i + 1; j < keep; ++j) {
      if (out[j * 6] < 0) continue;
      if ((p.force_suppress || out[i * 6] == out[j * 6]) && Overlap(out + i * 6 + 2, out + j * 6 + 2) >= p.nms_threshold)
        out[j * 6] = -1.f;
    }
  }
}

namespace {

class MultiBoxPriorOp : public OpDef {
 public:
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 1);
    ExpectFloat32(attrs, in);
    Check(in[0].shape.size() >= 4, Status::kShape,
          attrs.Where() + "data must be 4-D (batch, channels, y, x), got " + ShapeToString(in[0].shape));
    const MultiBoxPriorParams p = MultiBoxPriorParams::Parse(attrs);
    const int64_t per_place = static_cast<int64_t>(p.sizes.size() + p.ratios.size() - 1);
    return {{{1, in[0].shape[2] * in[0].shape[3] * per_place, 4}, DType::kFloat32}};
  }
};

class MultiBoxDetectionOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs&) const override { return {"cls_prob", "loc_pred", "anchor"}; }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 3);
    ExpectFloat32(attrs, in);
    MultiBoxDetectionParams::Parse(attrs);
    ExpectNdim(attrs, in[0], "cls_prob", 3);
    ExpectNdim(attrs, in[1], "loc_pred", 2);
    ExpectNdim(attrs, in[2], "anchor", 3);
    const Shape &c = in[0].shape, &l = in[1].shape, &a = in[2].shape;
    Check(a[2] == 4 && a[1] == c[2] && l[1] == c[2] * 4 && l[0] == c[0], Status::kShape,
          attrs.Where() + "cls_prob " + ShapeToString(c) + ", loc_pred " + ShapeToString(l) + " and anchor " +
              ShapeToString(a) + " do not describe the same anchors (N, classes, A), (N, A * 4), (1, A, 4)");
    return {{{c[0], c[2], 6}, DType::kFloat32}};
  }
};

const OpRegistrar kPrior({{"_contrib_MultiBoxPrior"}}, new MultiBoxPriorOp);
const OpRegistrar kDetection({{"_contrib_MultiBoxDetection"}}, new MultiBoxDetectionOp);

}  // namespace
}  // namespace qv
