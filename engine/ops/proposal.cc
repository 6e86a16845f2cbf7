#include "ops/proposal.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/error.h"

namespace qv {

namespace {

// MXNet keeps candidate indices in a float tensor while it sorts them: exact up to 2^24.
constexpr int64_t kMaxCandidates = int64_t{1} << 24;

}  // namespace

ProposalParams ProposalParams::Parse(const Attrs& attrs) {
  ProposalParams p;
  p.pre_nms_top_n = attrs.GetInt("rpn_pre_nms_top_n", 6000);
  p.post_nms_top_n = attrs.GetInt("rpn_post_nms_top_n", 300);
  p.threshold = static_cast<float>(attrs.GetFloat("threshold", 0.7));
  p.min_size = attrs.GetInt("rpn_min_size", 16);
  p.scales = attrs.GetFloat32Tuple("scales", {4.0, 8.0, 16.0, 32.0});
  p.ratios = attrs.GetFloat32Tuple("ratios", {0.5, 1.0, 2.0});
  p.feature_stride = attrs.GetInt("feature_stride", 16);
  p.output_score = attrs.GetBool("output_score", false);
  p.iou_loss = attrs.GetBool("iou_loss", false);
  p.multi = attrs.op() == "_contrib_MultiProposal";
  Check(p.post_nms_top_n >= 1 && p.post_nms_top_n <= kMaxCandidates, Status::kUnsupported,
        attrs.Where() + "rpn_post_nms_top_n must be in [1, 2^24], got " + std::to_string(p.post_nms_top_n));
  Check(p.feature_stride >= 1 && p.feature_stride <= (int64_t{1} << 20), Status::kParse,
        attrs.Where() + "feature_stride must be positive, got " + std::to_string(p.feature_stride));
  Check(!p.scales.empty() && !p.ratios.empty(), Status::kParse, attrs.Where() + "scales and ratios must not be empty");
  for (float s : p.scales)
    Check(s > 0.f, Status::kParse, attrs.Where() + "scales must be positive, got " + std::to_string(s));
  for (float r : p.ratios)
    Check(r > 0.f, Status::kParse, attrs.Where() + "ratios must be positive, got " + std::to_string(r));
  return p;
}

ProposalDims ProposalDims::Of(const ProposalParams& p, const Shape& cls_prob) {
  ProposalDims d;
  d.batch = cls_prob[0];
  d.anchors = cls_prob[1] / 2;
  d.height = cls_prob[2];
  d.width = cls_prob[3];
  d.count = d.anchors * d.height * d.width;
  d.pre = std::min(p.pre_nms_top_n > 0 ? p.pre_nms_top_n : d.count, d.count);
  d.keep = std::min(p.post_nms_top_n, d.pre);
  d.rows = p.post_nms_top_n;
  return d;
}

std::vector<float> ProposalBaseAnchors(const ProposalParams& p) {
  // MXNet's utils::GenerateAnchors and _Transform, each expression in MXNet's types (the double
  // literals make some of them double operations, rounded to float when stored).
  std::vector<float> base(4);
  base[0] = 0.0;
  base[1] = 0.0;
  base[2] = static_cast<float>(static_cast<double>(p.feature_stride) - 1.0);
  base[3] = base[2];
  std::vector<float> out;
  for (float ratio : p.ratios)
    for (float scale : p.scales) {
      const float w = base[2] - base[0] + 1.0f;
      const float h = base[3] - base[1] + 1.0f;
      const float x_ctr = static_cast<float>(base[0] + 0.5 * (w - 1.0f));
      const float y_ctr = static_cast<float>(base[1] + 0.5 * (h - 1.0f));
      const float size = w * h;
      const float size_ratios = std::floor(size / ratio);
      const float new_w = std::floor(std::sqrt(size_ratios) + 0.5f) * scale;
      const float new_h = std::floor((new_w / scale * ratio) + 0.5f) * scale;
      out.push_back(x_ctr - 0.5f * (new_w - 1.0f));
      out.push_back(y_ctr - 0.5f * (new_h - 1.0f));
      out.push_back(x_ctr + 0.5f * (new_w - 1.0f));
      out.push_back(y_ctr + 0.5f * (new_h - 1.0f));
    }
  return out;
}

void CheckProposalImInfo(const ProposalParams& p, const ProposalDims& d, const float* im_info, int64_t image,
                         const std::string& where) {
  const int32_t real_height = ProposalRealExtent(im_info[0], p.feature_stride);
  const int32_t real_width = ProposalRealExtent(im_info[1], p.feature_stride);
  Check(real_height <= d.height && real_width <= d.width, Status::kInvalidArgument,
        where + "im_info of image " + std::to_string(image) + " (height " + std::to_string(im_info[0]) + ", width " +
            std::to_string(im_info[1]) + ") covers " + std::to_string(real_height) + "x" + std::to_string(real_width) +
            " places of a " + std::to_string(d.height) + "x" + std::to_string(d.width) +
            " feature map at feature_stride " + std::to_string(p.feature_stride));
}

void ProposeImage(const ProposalParams& p, const ProposalDims& d, const float* base_anchors, const float* fg_scores,
                  const float* deltas, const float* im_info, float batch_index, float* rois, float* scores) {
  const int64_t A = d.anchors, H = d.height, W = d.width, stride = p.feature_stride;
  // Candidates [x1, y1, x2, y2, score], candidate (h * W + w) * A + a.
  std::vector<float> props(static_cast<size_t>(d.count) * 5);
  for (int64_t a = 0; a < A; ++a)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t w = 0; w < W; ++w) {
        float* box = &props[static_cast<size_t>(((h * W + w) * A + a) * 5)];
        const float* anchor = base_anchors + a * 4;
        box[0] = anchor[0] + static_cast<float>(w * stride);
        box[1] = anchor[1] + static_cast<float>(h * stride);
        box[2] = anchor[2] + static_cast<float>(w * stride);
        box[3] = anchor[3] + static_cast<float>(h * stride);
        box[4] = fg_scores[(a * H + h) * W + w];
      }

  const float im_height = im_info[0], im_width = im_info[1];
  const int32_t real_height = ProposalRealExtent(im_height, stride);
  const int32_t real_width = ProposalRealExtent(im_width, stride);
  const size_t plane = static_cast<size_t>(H * W);
  for (int64_t a = 0; a < A; ++a)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t w = 0; w < W; ++w) {
        float* box = &props[static_cast<size_t>(((h * W + w) * A + a) * 5)];
        const float* delta = deltas + a * 4 * plane + h * W + w;
        float pred_x1, pred_y1, pred_x2, pred_y2;
        if (p.iou_loss) {  // MXNet's IoUTransformInv
          pred_x1 = box[0] + delta[0];
          pred_y1 = box[1] + delta[plane];
          pred_x2 = box[2] + delta[2 * plane];
          pred_y2 = box[3] + delta[3 * plane];
        } else {  // BBoxTransformInv, in MXNet's types (double where its literals are double)
          const float width = static_cast<float>(box[2] - box[0] + 1.0);
          const float height = static_cast<float>(box[3] - box[1] + 1.0);
          const float ctr_x = static_cast<float>(box[0] + 0.5 * (width - 1.0));
          const float ctr_y = static_cast<float>(box[1] + 0.5 * (height - 1.0));
          const float dx = delta[0], dy = delta[plane], dw = delta[2 * plane], dh = delta[3 * plane];
          const float pred_ctr_x = dx * width + ctr_x;
          const float pred_ctr_y = dy * height + ctr_y;
          const float pred_w = std::exp(dw) * width;
          const float pred_h = std::exp(dh) * height;
          pred_x1 = static_cast<float>(pred_ctr_x - 0.5 * (pred_w - 1.0));
          pred_y1 = static_cast<float>(pred_ctr_y - 0.5 * (pred_h - 1.0));
          pred_x2 = static_cast<float>(pred_ctr_x + 0.5 * (pred_w - 1.0));
          pred_y2 = static_cast<float>(pred_ctr_y + 0.5 * (pred_h - 1.0));
        }
        box[0] = std::max(std::min(pred_x1, im_width - 1.0f), 0.0f);
        box[1] = std::max(std::min(pred_y1, im_height - 1.0f), 0.0f);
        box[2] = std::max(std::min(pred_x2, im_width - 1.0f), 0.0f);
        box[3] = std::max(std::min(pred_y2, im_height - 1.0f), 0.0f);
        if (h >= real_height || w >= real_width) box[4] = -1.0f;
      }

  // FilterBox: too small boxes grow by min_size / 2 on every side and score -1 (they stay candidates).
  const float min_size = static_cast<float>(p.min_size) * im_info[2];
  for (int64_t i = 0; i < d.count; ++i) {
    float* box = &props[static_cast<size_t>(i * 5)];
    const float iw = box[2] - box[0] + 1.0f;
    const float ih = box[3] - box[1] + 1.0f;
    if (iw < min_size || ih < min_size) {
      box[0] -= min_size / 2;
      box[1] -= min_size / 2;
      box[2] += min_size / 2;
      box[3] += min_size / 2;
      box[4] = -1.0f;
    }
  }

  std::vector<int64_t> order(static_cast<size_t>(d.count));
  std::iota(order.begin(), order.end(), int64_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t i, int64_t j) { return props[i * 5 + 4] > props[j * 5 + 4]; });
  std::vector<float> dets(static_cast<size_t>(d.pre) * 5);
  for (int64_t i = 0; i < d.pre; ++i) std::copy_n(&props[order[i] * 5], 5, &dets[i * 5]);

  // NonMaximumSuppression, MXNet's arithmetic in its order. The boxes are held as columns and each kept
  // box's overlaps are computed for every later box without branches, so that the loop vectorizes:
  // with a few hundred boxes kept out of thousands, it is most of the operator's time.
  std::vector<float> x1(static_cast<size_t>(d.pre)), y1(x1.size()), x2(x1.size()), y2(x1.size()), area(x1.size());
  for (int64_t i = 0; i < d.pre; ++i) {
    const float* b = &dets[i * 5];
    x1[i] = b[0];
    y1[i] = b[1];
    x2[i] = b[2];
    y2[i] = b[3];
    area[i] = (b[2] - b[0] + 1) * (b[3] - b[1] + 1);
  }
  std::vector<unsigned char> suppressed(static_cast<size_t>(d.pre), 0);
  std::vector<int64_t> keep;
  keep.reserve(static_cast<size_t>(d.keep));
  const float threshold = p.threshold;
  for (int64_t i = 0; i < d.pre && static_cast<int64_t>(keep.size()) < d.keep; ++i) {
    if (suppressed[i]) continue;
    keep.push_back(i);
    const float ix1 = x1[i], iy1 = y1[i], ix2 = x2[i], iy2 = y2[i], iarea = area[i];
    for (int64_t j = i + 1; j < d.pre; ++j) {
      const float w = std::max(0.0f, std::min(ix2, x2[j]) - std::max(ix1, x1[j]) + 1.0f);
      const float h = std::max(0.0f, std::min(iy2, y2[j]) - std::max(iy1, y1[j]) + 1.0f);
      const float inter = w * h;
      const float ovr = inter / (iarea + area[j] - inter);
      suppressed[j] |= static_cast<unsigned char>(ovr > threshold);
    }
  }

  // Every row: the kept boxes, then the kept boxes again from the first (row i is kept row i mod kept).
  const int64_t kept = static_cast<int64_t>(keep.size());  // >= 1: the first candidate is always kept
  for (int64_t i = 0; i < d.rows; ++i) {
    const float* b = &dets[keep[i % kept] * 5];
    float* row = rois + i * 5;
    row[0] = batch_index;
    std::copy_n(b, 4, row + 1);
    if (scores) scores[i] = b[4];
  }
}

namespace {

class ProposalOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs&) const override { return {"cls_prob", "bbox_pred", "im_info"}; }
  int NumOutputs(const Attrs& attrs) const override { return attrs.GetBool("output_score", false) ? 2 : 1; }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 3);
    ExpectFloat32(attrs, in);
    const ProposalParams p = ProposalParams::Parse(attrs);
    ExpectNdim(attrs, in[0], "cls_prob", 4);
    ExpectNdim(attrs, in[1], "bbox_pred", 4);
    ExpectNdim(attrs, in[2], "im_info", 2);
    const Shape &c = in[0].shape, &b = in[1].shape, &info = in[2].shape;
    const int64_t anchors = static_cast<int64_t>(p.scales.size() * p.ratios.size());
    Check(c[1] == 2 * anchors, Status::kShape,
          attrs.Where() + "cls_prob " + ShapeToString(c) + " must have 2 x " + std::to_string(anchors) +
              " channels (background and foreground scores of len(scales) x len(ratios) anchors)");
    Check(b == Shape{c[0], 4 * anchors, c[2], c[3]} && info == Shape{c[0], 3}, Status::kShape,
          attrs.Where() + "bbox_pred " + ShapeToString(b) + " and im_info " + ShapeToString(info) +
              " must be (N, 4A, H, W) and (N, 3) for cls_prob " + ShapeToString(c));
    Check(p.multi || c[0] == 1, Status::kShape,
          attrs.Where() + "takes one image, as MXNet's does (got a batch of " + std::to_string(c[0]) +
              "); _contrib_MultiProposal takes a batch");
    const ProposalDims d = ProposalDims::Of(p, c);
    Check(d.count >= 1, Status::kShape, attrs.Where() + "cls_prob " + ShapeToString(c) + " has no anchors");
    Check(d.count <= kMaxCandidates, Status::kUnsupported,
          attrs.Where() + std::to_string(d.count) + " anchors are more than MXNet ranks exactly (2^24)");
    const int64_t rows = d.rows * (p.multi ? d.batch : 1);
    std::vector<TensorType> out{{{rows, 5}, DType::kFloat32}};
    if (p.output_score) out.push_back({{rows, 1}, DType::kFloat32});
    return out;
  }
};

const OpRegistrar kRegister({{"_contrib_Proposal"}, {"_contrib_MultiProposal"}}, new ProposalOp);

}  // namespace
}  // namespace qv
