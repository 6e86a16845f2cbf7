// Attributes of the detection post-processing operators (MXNet's contrib box operators), shared by
// their shape inference and their kernels.
#pragma once

#include "ops/op.h"

namespace qv {

enum class BoxFormat { kCorner, kCenter };  // (xmin, ymin, xmax, ymax) or (x, y, width, height)

// _contrib_box_decode(data (B, N, 4), anchors (1, N, 4)): offsets relative to anchors -> corner boxes.
struct BoxDecodeParams {
  float std[4] = {1, 1, 1, 1};
  float clip = -1;  // > 0: width/height offsets are clipped to it before exp
  BoxFormat anchor_format = BoxFormat::kCenter;
  static BoxDecodeParams Parse(const Attrs& attrs);
};

// _contrib_box_nms(data (..., N, width)): per batch, the boxes with score > valid_thresh (and, with a
// class id, not of background_id) sorted by descending score, the first topk kept, then greedy
// suppression of any later box whose IoU with a kept one exceeds overlap_thresh (same class only
// unless force_suppress). Kept rows come first in score order; the other rows are -1.
struct BoxNmsParams {
  float overlap_thresh = 0.5f;
  float valid_thresh = 0.f;
  int64_t topk = -1;
  int64_t coord_start = 2, score_index = 1, id_index = -1, background_id = -1;
  bool force_suppress = false;
  BoxFormat in_format = BoxFormat::kCorner, out_format = BoxFormat::kCorner;
  // Checks the indices against the row width as well.
  static BoxNmsParams Parse(const Attrs& attrs, int64_t width);
};

}  // namespace qv
