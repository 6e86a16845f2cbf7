// MXNet's symbolic SSD operators (src/operator/contrib/multibox_*): _contrib_MultiBoxPrior makes the
// anchors of one feature map, _contrib_MultiBoxDetection turns class probabilities and box offsets
// into (N, anchors, 6) rows [class, score, xmin, ymin, xmax, ymax] (coordinates relative to the image).
#pragma once

#include <vector>

#include "ops/op.h"

namespace qv {

// _contrib_MultiBoxPrior(data (N, C, H, W)): (1, H * W * (sizes + ratios - 1), 4) corner anchors.
struct MultiBoxPriorParams {
  std::vector<float> sizes{1.f}, ratios{1.f};
  bool clip = false;
  float step_y = -1.f, step_x = -1.f;  // <= 0: 1 / H and 1 / W
  float offset_y = 0.5f, offset_x = 0.5f;
  static MultiBoxPriorParams Parse(const Attrs& attrs);
};
// The anchors for an H x W map, as MXNet 1.9.1 computes them (float arithmetic in MXNet's order).
std::vector<float> MultiBoxPriorAnchors(const MultiBoxPriorParams& p, int64_t height, int64_t width);

// _contrib_MultiBoxDetection(cls_prob (N, classes, A), loc_pred (N, A * 4), anchor (1, A, 4)).
struct MultiBoxDetectionParams {
  bool clip = true;
  float threshold = 0.01f;
  float nms_threshold = 0.5f;
  bool force_suppress = false;
  float variances[4] = {0.1f, 0.1f, 0.2f, 0.2f};
  int64_t nms_topk = -1;
  static MultiBoxDetectionParams Parse(const Attrs& attrs);
};
// One image: `cls_prob` (classes x anchors), `loc_pred` (anchors x 4), `anchors` (anchors x 4) into
// `out` (anchors x 6), MXNet 1.9.1's CPU algorithm step for step (see multibox.cc).
void MultiBoxDetect(const MultiBoxDetectionParams& p, int64_t classes, int64_t anchors, const float* cls_prob,
                    const float* loc_pred, const float* anchor_boxes, float* out);

}  // namespace qv
