// MXNet's region proposal operators (src/operator/contrib/proposal*, multi_proposal*), the RPN stage
// of the symbolic Faster R-CNN (mx-rcnn): _contrib_Proposal (one image) and _contrib_MultiProposal
// (a batch) turn an RPN's foreground probabilities and box deltas into rpn_post_nms_top_n rows
// [batch index, x1, y1, x2, y2] per image (and, with output_score, each row's score).
//
// The output size is fixed by the attributes: when fewer boxes survive suppression, MXNet fills the
// remaining rows with the kept ones again, cyclically (row i repeats kept row i mod kept), so a plan
// made per input shape stays exact.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ops/op.h"
#include "ops/rcnn_math.h"

namespace qv {

struct ProposalParams {
  int64_t pre_nms_top_n = 6000;   // rpn_pre_nms_top_n (<= 0: every anchor)
  int64_t post_nms_top_n = 300;   // rpn_post_nms_top_n: rows per image
  float threshold = 0.7f;         // suppress when IoU > threshold
  int64_t min_size = 16;          // rpn_min_size, times im_info's scale
  std::vector<float> scales{4.f, 8.f, 16.f, 32.f};
  std::vector<float> ratios{0.5f, 1.f, 2.f};
  int64_t feature_stride = 16;
  bool output_score = false;
  bool iou_loss = false;          // deltas are corner offsets (x1, y1, x2, y2), not (dx, dy, dw, dh)
  bool multi = false;             // _contrib_MultiProposal: any batch, rows labelled by image
  static ProposalParams Parse(const Attrs& attrs);
};

// The sizes one run works with, from the scores' shape (N, 2A, H, W).
struct ProposalDims {
  int64_t batch = 1, anchors = 0, height = 0, width = 0;
  int64_t count = 0;  // anchors * height * width candidates per image
  int64_t pre = 0;    // candidates kept for suppression: min(pre_nms_top_n or count, count)
  int64_t keep = 0;   // suppression stops after this many: min(post_nms_top_n, pre)
  int64_t rows = 0;   // output rows per image: post_nms_top_n
  static ProposalDims Of(const ProposalParams& p, const Shape& cls_prob);
};

// The A = ratios x scales base anchors (x1, y1, x2, y2) at the first place, ratios outer, MXNet's
// float arithmetic (GenerateAnchors on the base box [0, 0, stride - 1, stride - 1]).
std::vector<float> ProposalBaseAnchors(const ProposalParams& p);

// How many rows (columns) of the map im_info's height (width) covers: (int)(extent / stride).
inline int32_t ProposalRealExtent(float im_extent, int64_t feature_stride) {
  return TruncToInt32(im_extent / static_cast<float>(feature_stride));
}

// MXNet fails the run when im_info covers more rows or columns than the map has: so does this
// (Status::kInvalidArgument, `where` first), for image `image`'s im_info row.
void CheckProposalImInfo(const ProposalParams& p, const ProposalDims& d, const float* im_info, int64_t image,
                         const std::string& where);

// One image, MXNet 1.9.1's CPU algorithm step for step: anchors shifted over the map (candidate
// (h * W + w) * A + a), each decoded with its deltas and clipped to im_info's image, candidates past
// im_info's extent scored -1, boxes below min_size * im_info[2] enlarged by half of it on each side
// and scored -1, a stable sort by descending score, the first `pre`, greedy suppression (IoU with the
// +1 pixel convention > threshold) stopping at `keep` boxes, then `rows` output rows cycling through
// the kept ones. `fg_scores` is (A, H, W) (the scores' second half of channels), `deltas` (4A, H, W),
// `im_info` (height, width, scale), checked by CheckProposalImInfo; `rois` gets rows x 5 floats,
// `scores` (if not null) rows floats.
void ProposeImage(const ProposalParams& p, const ProposalDims& d, const float* base_anchors, const float* fg_scores,
                  const float* deltas, const float* im_info, float batch_index, float* rois, float* scores);

}  // namespace qv
