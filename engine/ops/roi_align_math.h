// _contrib_ROIAlign's arithmetic as MXNet 1.9.1's CPU kernel does it (src/operator/contrib/roi_align.cc),
// one definition for both backends. An output cell (roi, c, i, j) averages grid_h x grid_w bilinear
// samples of its feature plane, taken at the centres of a regular grid over the cell's bin; a sample
// outside [-1, height] x [-1, width] counts as 0 and one in the border band reads the edge pixels.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstdint>

#include "ops/host_device.h"

namespace qv {

struct RoiAlignGeometry {
  int64_t rois = 0, batch = 0, height = 0, width = 0;
  int64_t channels = 0;  // the output's; position-sensitive pooling reads pooled_h * pooled_w times as many
  int64_t pooled_h = 1, pooled_w = 1;
  float spatial_scale = 1.f;
  int64_t sample_ratio = -1;  // > 0: samples per bin side; else ceil(bin extent) of them
  bool position_sensitive = false;
  bool aligned = false;  // Detectron2's half-pixel shift; then a ROI must have a positive extent
};

// A ROI (image, x1, y1, x2, y2, in image coordinates) as bins on the feature map.
struct RoiBins {
  int64_t image = 0;  // negative: no ROI, its cells are 0
  float start_h = 0, start_w = 0, bin_h = 0, bin_w = 0;
  float extent_h = 0, extent_w = 0;
  int64_t grid_h = 1, grid_w = 1;
};

QV_HOST_DEVICE inline RoiBins ResolveRoiBins(const RoiAlignGeometry& g, const float* roi) {
  RoiBins b;
  b.image = static_cast<int64_t>(roi[0]);
  const float offset = g.aligned ? 0.5f : 0.f;
  b.start_w = roi[1] * g.spatial_scale - offset;
  b.start_h = roi[2] * g.spatial_scale - offset;
  b.extent_w = (roi[3] * g.spatial_scale - offset) - b.start_w;
  b.extent_h = (roi[4] * g.spatial_scale - offset) - b.start_h;
  if (!g.aligned) {  // MXNet's older rule: a malformed ROI is read as 1 x 1
    b.extent_w = b.extent_w > 1.f ? b.extent_w : 1.f;
    b.extent_h = b.extent_h > 1.f ? b.extent_h : 1.f;
  }
  b.bin_h = b.extent_h / static_cast<float>(g.pooled_h);
  b.bin_w = b.extent_w / static_cast<float>(g.pooled_w);
  b.grid_h = g.sample_ratio > 0 ? g.sample_ratio : static_cast<int64_t>(ceilf(b.extent_h / static_cast<float>(g.pooled_h)));
  b.grid_w = g.sample_ratio > 0 ? g.sample_ratio : static_cast<int64_t>(ceilf(b.extent_w / static_cast<float>(g.pooled_w)));
  return b;
}

// Where MXNet's kernel would fail or read outside the data for a ROI: a coordinate that is not finite,
// an image index past the batch, or (aligned) an extent that is not positive. The CPU fails the run for
// these, CUDA writes NaN cells.
enum class RoiFault { kNone, kNotFinite, kPastBatch, kNoExtent };

QV_HOST_DEVICE inline RoiFault RoiFaultOf(const RoiAlignGeometry& g, const float* roi) {
  for (int k = 0; k < 5; ++k)
    if (!(fabsf(roi[k]) <= FLT_MAX)) return RoiFault::kNotFinite;  // false for NaN and infinities
  const RoiBins b = ResolveRoiBins(g, roi);
  if (b.image >= g.batch) return RoiFault::kPastBatch;
  if (g.aligned && !(b.extent_h > 0.f && b.extent_w > 0.f)) return RoiFault::kNoExtent;
  return RoiFault::kNone;
}

// The four pixels (offsets in a plane) and weights of one bilinear sample; all weights 0 outside the map.
struct RoiAlignTap {
  int64_t p1 = 0, p2 = 0, p3 = 0, p4 = 0;
  float w1 = 0, w2 = 0, w3 = 0, w4 = 0;
};

QV_HOST_DEVICE inline RoiAlignTap RoiAlignTapAt(int64_t height, int64_t width, float y, float x) {
  RoiAlignTap t;
  // The negated test also leaves out NaN coordinates, which MXNet would turn into wild reads.
  if (!(y >= -1.f && y <= static_cast<float>(height) && x >= -1.f && x <= static_cast<float>(width))) return t;
  if (y <= 0) y = 0;
  if (x <= 0) x = 0;
  int64_t y_low = static_cast<int64_t>(y), x_low = static_cast<int64_t>(x), y_high, x_high;
  if (y_low >= height - 1) {
    y_high = y_low = height - 1;
    y = static_cast<float>(y_low);
  } else {
    y_high = y_low + 1;
  }
  if (x_low >= width - 1) {
    x_high = x_low = width - 1;
    x = static_cast<float>(x_low);
  } else {
    x_high = x_low + 1;
  }
  const float ly = y - static_cast<float>(y_low), lx = x - static_cast<float>(x_low);
  const float hy = 1.f - ly, hx = 1.f - lx;
  t.p1 = y_low * width + x_low;
  t.p2 = y_low * width + x_high;
  t.p3 = y_high * width + x_low;
  t.p4 = y_high * width + x_high;
  t.w1 = hy * hx;
  t.w2 = hy * lx;
  t.w3 = ly * hx;
  t.w4 = ly * lx;
  return t;
}

// Sample (iy, ix) of output cell (i, j): its coordinates, summed in MXNet's order.
QV_HOST_DEVICE inline float RoiAlignSampleY(const RoiBins& b, int64_t i, int64_t iy) {
  return b.start_h + static_cast<float>(i) * b.bin_h +
         static_cast<float>(iy + .5f) * b.bin_h / static_cast<float>(b.grid_h);
}
QV_HOST_DEVICE inline float RoiAlignSampleX(const RoiBins& b, int64_t j, int64_t ix) {
  return b.start_w + static_cast<float>(j) * b.bin_w +
         static_cast<float>(ix + .5f) * b.bin_w / static_cast<float>(b.grid_w);
}

QV_HOST_DEVICE inline float RoiAlignRead(const RoiAlignTap& t, const float* plane) {
  return t.w1 * plane[t.p1] + t.w2 * plane[t.p2] + t.w3 * plane[t.p3] + t.w4 * plane[t.p4];
}

// The feature plane output cell (image, c, i, j) reads.
QV_HOST_DEVICE inline const float* RoiAlignPlane(const RoiAlignGeometry& g, const float* data, int64_t image, int64_t c,
                                                 int64_t i, int64_t j) {
  int64_t plane = image * g.channels + c;
  if (g.position_sensitive) plane = (image * g.channels + c) * g.pooled_h * g.pooled_w + i * g.pooled_w + j;
  return data + plane * g.height * g.width;
}

}  // namespace qv
