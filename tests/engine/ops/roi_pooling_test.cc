// ROIPooling on MXNet 1.9.1's documented example and against a plain reference: rounding onto the
// map's grid, spatial_scale, uneven bins, ROIs off the map or of another image (0), -inf cells.
#include <cfloat>
#include <cmath>

#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

Tensor RunRoiPooling(const AttrMap& attrs, const Tensor& data, const Tensor& rois) {
  GraphBuilder g;
  g.Output(g.Op("ROIPooling", "roi_pool", attrs, {g.Variable("data"), g.Variable("rois")}));
  return Run(g, {data, rois}).at(0);
}

// Bin p of an ROI spanning `cells` from `start` covers [start + floor(p * cells / bins), start +
// ceil((p + 1) * cells / bins)) clamped to the map; max over it, 0 when empty or of another image.
Tensor Reference(const Tensor& data, const Tensor& rois, int64_t ph_n, int64_t pw_n, float scale) {
  const int64_t N = data.shape[0], C = data.shape[1], H = data.shape[2], W = data.shape[3], R = rois.shape[0];
  Tensor out({R, C, ph_n, pw_n});
  for (int64_t r = 0; r < R; ++r) {
    const float* roi = &rois.data[static_cast<size_t>(r * 5)];
    const int64_t image = static_cast<int64_t>(roi[0]);
    const int64_t x1 = std::lround(roi[1] * scale), y1 = std::lround(roi[2] * scale);
    const int64_t x2 = std::lround(roi[3] * scale), y2 = std::lround(roi[4] * scale);
    const float bin_h = static_cast<float>(std::max<int64_t>(y2 - y1 + 1, 1)) / static_cast<float>(ph_n);
    const float bin_w = static_cast<float>(std::max<int64_t>(x2 - x1 + 1, 1)) / static_cast<float>(pw_n);
    for (int64_t c = 0; c < C; ++c)
      for (int64_t ph = 0; ph < ph_n; ++ph)
        for (int64_t pw = 0; pw < pw_n; ++pw) {
          const int64_t h0 = std::clamp<int64_t>(static_cast<int64_t>(std::floor(ph * bin_h)) + y1, 0, H);
          const int64_t h1 = std::clamp<int64_t>(static_cast<int64_t>(std::ceil((ph + 1) * bin_h)) + y1, 0, H);
          const int64_t w0 = std::clamp<int64_t>(static_cast<int64_t>(std::floor(pw * bin_w)) + x1, 0, W);
          const int64_t w1 = std::clamp<int64_t>(static_cast<int64_t>(std::ceil((pw + 1) * bin_w)) + x1, 0, W);
          float v = 0.f;
          if (image >= 0 && image < N && h0 < h1 && w0 < w1) {
            v = -FLT_MAX;
            for (int64_t h = h0; h < h1; ++h)
              for (int64_t w = w0; w < w1; ++w)
                v = std::max(v, data.data[static_cast<size_t>(((image * C + c) * H + h) * W + w)]);
          }
          out.data[static_cast<size_t>(((r * C + c) * ph_n + ph) * pw_n + pw)] = v;
        }
  }
  return out;
}

}  // namespace

TEST_CASE("ROIPooling gives MXNet's documented example", "[ops][roi_pooling]") {
  Tensor x({1, 1, 8, 6});
  for (size_t i = 0; i < x.data.size(); ++i) x.data[i] = static_cast<float>(i);
  const Tensor roi({1, 5}, {0, 0, 0, 4, 4});
  ExpectClose(RunRoiPooling({{"pooled_size", "(2, 2)"}, {"spatial_scale", "1.0"}}, x, roi),
              Tensor({1, 1, 2, 2}, {14, 16, 26, 28}), "spatial_scale 1", 0.0);
  ExpectClose(RunRoiPooling({{"pooled_size", "(2, 2)"}, {"spatial_scale", "0.7"}}, x, roi),
              Tensor({1, 1, 2, 2}, {7, 9, 19, 21}), "spatial_scale 0.7", 0.0);
}

TEST_CASE("ROIPooling matches the plain reference: scales, uneven bins, off-map ROIs, bad images",
          "[ops][roi_pooling]") {
  Tensor data = RandomTensor({2, 3, 11, 13}, 5);
  for (int64_t h = 2; h < 5; ++h)
    for (int64_t w = 3; w < 6; ++w) data.data[static_cast<size_t>((1 * 11 + h) * 13 + w)] = -INFINITY;
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> at(-40.f, 230.f), extent(-10.f, 150.f);
  std::vector<float> rows;
  for (int i = 0; i < 40; ++i) {
    const float x = at(rng), y = at(rng);
    rows.insert(rows.end(), {static_cast<float>(i % 4) - 1.f, x, y, x + extent(rng), y + extent(rng)});
  }
  rows.insert(rows.end(), {0, 48, 32, 95, 79});  // exactly the -inf cells of channel 1 at 1/16
  const Tensor rois({41, 5}, rows);
  for (const auto& [size, scale] : {std::pair<Shape, float>{{7, 7}, 0.0625f}, {{3, 5}, 0.0625f}, {{2, 2}, 0.1f},
                                    {{4, 3}, 1.f}, {{1, 1}, 0.f}}) {
    const AttrMap attrs{{"pooled_size", "(" + std::to_string(size[0]) + ", " + std::to_string(size[1]) + ")"},
                        {"spatial_scale", std::to_string(scale)}};
    ExpectClose(RunRoiPooling(attrs, data, rois), Reference(data, rois, size[0], size[1], scale),
                "pooled " + ShapeStr(size) + " at " + std::to_string(scale), 0.0);
  }
}

TEST_CASE("ROIPooling refuses malformed attributes and inputs", "[ops][roi_pooling]") {
  const Tensor data = RandomTensor({1, 2, 4, 4}, 1), rois({1, 5}, {0, 0, 0, 3, 3});
  ExpectMessage(FailureOf([&] { RunRoiPooling({{"pooled_size", "(2, 0)"}, {"spatial_scale", "1"}}, data, rois); }),
                "roi_pool", {"pooled_size"});
  ExpectMessage(FailureOf([&] { RunRoiPooling({{"pooled_size", "(2, 2)"}, {"spatial_scale", "2"}}, data, rois); }),
                "roi_pool", {"spatial_scale"});
  ExpectMessage(FailureOf([&] { RunRoiPooling({{"pooled_size", "(2, 2)"}, {"spatial_scale", "1"}}, data,
                                              Tensor({1, 4}, {0, 0, 3, 3})); }),
                "roi_pool", {"rois", "(1, 4)"});
}
