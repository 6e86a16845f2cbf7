// _contrib_ROIAlign against a reference written from MXNet 1.9.1's definition in double: each cell the mean
// of a grid of bilinear samples at its bin's sub-cell centres (sample_ratio per side, or ceil of the bin's
// extent), samples beyond one pixel outside the map counting 0 and those in the border band clamped.
#include <cmath>

#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

struct RoiCase {
  int64_t ph = 2, pw = 2, sample_ratio = -1;
  double scale = 1.0;
  bool position_sensitive = false, aligned = false;
};

double Bilinear(const float* plane, int64_t h, int64_t w, double y, double x) {
  if (y < -1.0 || y > h || x < -1.0 || x > w) return 0;
  y = std::min(std::max(y, 0.0), double(h - 1));
  x = std::min(std::max(x, 0.0), double(w - 1));
  const auto y0 = static_cast<int64_t>(y), x0 = static_cast<int64_t>(x);
  const int64_t y1 = std::min(y0 + 1, h - 1), x1 = std::min(x0 + 1, w - 1);
  const double ly = y - y0, lx = x - x0;
  return (1 - ly) * (1 - lx) * plane[y0 * w + x0] + (1 - ly) * lx * plane[y0 * w + x1] +
         ly * (1 - lx) * plane[y1 * w + x0] + ly * lx * plane[y1 * w + x1];
}

Tensor RefRoiAlign(const Tensor& data, const Tensor& rois, const RoiCase& c) {
  const int64_t h = data.shape[2], w = data.shape[3], cells = c.ph * c.pw;
  const int64_t channels = c.position_sensitive ? data.shape[1] / cells : data.shape[1];
  const int64_t r_count = rois.shape[0];
  Tensor y({r_count, channels, c.ph, c.pw});
  for (int64_t r = 0; r < r_count; ++r) {
    const float* roi = &rois.data[r * 5];
    const double off = c.aligned ? 0.5 : 0.0;
    const double x1 = roi[1] * c.scale - off, y1 = roi[2] * c.scale - off;
    double rw = roi[3] * c.scale - off - x1, rh = roi[4] * c.scale - off - y1;
    if (!c.aligned) rw = std::max(rw, 1.0), rh = std::max(rh, 1.0);
    const double bh = rh / c.ph, bw = rw / c.pw;
    const int64_t gh = c.sample_ratio > 0 ? c.sample_ratio : static_cast<int64_t>(std::ceil(bh));
    const int64_t gw = c.sample_ratio > 0 ? c.sample_ratio : static_cast<int64_t>(std::ceil(bw));
    for (int64_t ch = 0; ch < channels; ++ch)
      for (int64_t i = 0; i < c.ph; ++i)
        for (int64_t j = 0; j < c.pw; ++j) {
          double sum = 0;
          const int64_t plane_ch = c.position_sensitive ? (ch * c.ph + i) * c.pw + j : ch;
          const float* plane = &data.data[((static_cast<int64_t>(roi[0]) * data.shape[1]) + plane_ch) * h * w];
          if (roi[0] >= 0)
            for (int64_t iy = 0; iy < gh; ++iy)
              for (int64_t ix = 0; ix < gw; ++ix)
                sum += Bilinear(plane, h, w, y1 + (i + (iy + 0.5) / gh) * bh, x1 + (j + (ix + 0.5) / gw) * bw);
          y.data[((r * channels + ch) * c.ph + i) * c.pw + j] = static_cast<float>(sum / double(gh * gw));
        }
  }
  return y;
}

AttrMap RoiAttrs(const RoiCase& c) {
  AttrMap a = {{"pooled_size", "(" + std::to_string(c.ph) + ", " + std::to_string(c.pw) + ")"},
               {"spatial_scale", std::to_string(c.scale)}};
  if (c.sample_ratio != -1) a["sample_ratio"] = std::to_string(c.sample_ratio);
  if (c.position_sensitive) a["position_sensitive"] = "True";
  if (c.aligned) a["aligned"] = "True";
  return a;
}

Tensor RunRoiAlign(const AttrMap& attrs, const Tensor& data, const Tensor& rois) {
  GraphBuilder g;
  g.Output(g.Op("_contrib_ROIAlign", "op0", attrs, {g.Variable("data"), g.Variable("rois")}));
  return Run(g, {data, rois}).at(0);
}

Tensor Rois(const std::vector<std::vector<float>>& rows) {
  Tensor t({static_cast<int64_t>(rows.size()), 5});
  for (size_t r = 0; r < rows.size(); ++r)
    for (size_t k = 0; k < 5; ++k) t.data[r * 5 + k] = rows[r][k];
  return t;
}

// Boxes inside the map, crossing its edges, beyond it, smaller than a pixel, on the second image.
const Tensor kRois = Rois({{0, 1.5f, 2.f, 14.f, 11.5f},
                           {1, -3.f, -2.f, 6.f, 5.f},
                           {1, 15.f, 12.f, 30.f, 25.f},
                           {0, 8.2f, 6.1f, 8.4f, 6.3f},
                           {1, 0.f, 0.f, 21.f, 17.f},
                           {0, 20.f, 16.f, 40.f, 40.f}});

}  // namespace

TEST_CASE("ROIAlign: grids fixed and adaptive, scales, pooled sizes, boxes across and beyond the map", "[ops][roi_align]") {
  const Tensor data = RandomTensor({2, 3, 9, 11}, 950);
  for (const RoiCase& c : {RoiCase{2, 2, -1, 0.5}, RoiCase{3, 2, 2, 0.5}, RoiCase{7, 7, 2, 0.5},
                           RoiCase{2, 3, 1, 1.0}, RoiCase{1, 1, -1, 0.25}, RoiCase{2, 2, 3, 0.5, false, true}}) {
    const std::string what = "pooled " + std::to_string(c.ph) + "x" + std::to_string(c.pw) + " sample_ratio " +
                             std::to_string(c.sample_ratio) + " scale " + std::to_string(c.scale) +
                             (c.aligned ? " aligned" : "");
    RunCase(what, [&] { ExpectClose(RunRoiAlign(RoiAttrs(c), data, kRois), RefRoiAlign(data, kRois, c), what); });
  }
}

TEST_CASE("ROIAlign: position-sensitive cells read their own channel group", "[ops][roi_align]") {
  const Tensor data = RandomTensor({2, 12, 8, 8}, 951);  // 3 output channels of 2 x 2 cells
  const RoiCase c{2, 2, 2, 0.5, true};
  const Tensor got = RunRoiAlign(RoiAttrs(c), data, kRois);
  CHECK(got.shape == Shape{6, 3, 2, 2});
  ExpectClose(got, RefRoiAlign(data, kRois, c), "position-sensitive");
}

TEST_CASE("ROIAlign: a negative image index gives zero cells", "[ops][roi_align]") {
  const Tensor data = RandomTensor({1, 2, 6, 6}, 952);
  const Tensor got = RunRoiAlign(RoiAttrs({}), data, Rois({{-1, 0, 0, 4, 4}, {0, 0, 0, 4, 4}}));
  for (int k = 0; k < 8; ++k) CHECK(got.data[k] == 0.f);
  CHECK(got.data[8] != 0.f);
}

TEST_CASE("ROIAlign: bad attributes, shapes and ROIs are refused naming the node", "[ops][roi_align]") {
  const Tensor data = RandomTensor({2, 4, 6, 6}, 953);
  const Tensor rois = Rois({{0, 0, 0, 4, 4}});
  const AttrMap ok = RoiAttrs({});
  auto with = [&](const std::string& key, const std::string& value) {
    AttrMap a = ok;
    if (value.empty()) a.erase(key);
    else a[key] = value;
    return a;
  };
  ExpectMessage(FailureOf([&] { RunRoiAlign(with("pooled_size", ""), data, rois); }), "op0", {"pooled_size"});
  ExpectMessage(FailureOf([&] { RunRoiAlign(with("pooled_size", "(2, 0)"), data, rois); }), "op0", {"pooled_size", "positive"});
  ExpectMessage(FailureOf([&] { RunRoiAlign(with("spatial_scale", ""), data, rois); }), "op0", {"spatial_scale"});
  ExpectMessage(FailureOf([&] { RunRoiAlign(with("spatial_scale", "2"), data, rois); }), "op0", {"spatial_scale", "between 0 and 1"});
  AttrMap sensitive = with("pooled_size", "(3, 3)");
  sensitive["position_sensitive"] = "True";  // 4 channels are not groups of 3 x 3
  ExpectMessage(FailureOf([&] { RunRoiAlign(sensitive, data, rois); }), "op0", {"divisible"});
  ExpectMessage(FailureOf([&] { RunRoiAlign(ok, RandomTensor({2, 4, 6}, 1), rois); }), "op0", {"4-D"});
  ExpectMessage(FailureOf([&] { RunRoiAlign(ok, data, RandomTensor({3, 4}, 2)); }), "op0", {"(R, 5)", "(3, 4)"});
  // At run time, ROIs whose reading MXNet leaves undefined or fails.
  ExpectMessage(FailureOf([&] { RunRoiAlign(ok, data, Rois({{0, 0, 0, 4, 4}, {2, 0, 0, 4, 4}})); }), "op0",
                {"ROI 1", "image 2", "batch of 2"});
  ExpectMessage(FailureOf([&] { RunRoiAlign(ok, data, Rois({{0, 0, NAN, 4, 4}})); }), "op0", {"ROI 0", "not finite"});
  ExpectMessage(FailureOf([&] { RunRoiAlign(with("aligned", "True"), data, Rois({{0, 2, 2, 2, 4}})); }), "op0",
                {"ROI 0", "no extent"});
}
