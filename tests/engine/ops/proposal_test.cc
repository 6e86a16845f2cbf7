// _contrib_Proposal and _contrib_MultiProposal on cases worked out by hand from MXNet 1.9.1's
// definitions (src/operator/contrib/proposal*: the anchors, their order, padding by cycling, the
// im_info extent, the min_size filter) and against a plain reference on random inputs. The
// conformance suite holds a symbolic Faster R-CNN to MXNet.
#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

struct Proposals {
  Tensor rois, scores;
};

Proposals RunProposal(const std::string& op, const AttrMap& attrs, const Tensor& cls, const Tensor& deltas,
                      const Tensor& info) {
  AttrMap with_score = attrs;
  with_score["output_score"] = "True";
  GraphBuilder g;
  const int node =
      g.Op(op, "rois", with_score, {g.Variable("cls_prob"), g.Variable("bbox_pred"), g.Variable("im_info")});
  g.Output({node, 0});
  g.Output({node, 1});
  const std::vector<Tensor> out = Run(g, {cls, deltas, info});
  return {out.at(0), out.at(1)};
}

// The plain reference: MXNet's steps written out directly (decode, filter, stable ranking by
// descending score, greedy suppression, cyclic padding), one image at a time.
Proposals Reference(const std::vector<float>& scales, const std::vector<float>& ratios, int stride, int pre_top,
                    int post_top, float threshold, int min_size, bool multi, const Tensor& cls, const Tensor& deltas,
                    const Tensor& info) {
  const int64_t n_images = cls.shape[0], A = cls.shape[1] / 2, H = cls.shape[2], W = cls.shape[3];
  std::vector<std::array<float, 4>> base;
  for (float r : ratios)
    for (float s : scales) {
      const float size_ratios = std::floor(static_cast<float>(stride * stride) / r);
      const float w = std::floor(std::sqrt(size_ratios) + 0.5f) * s;
      const float h = std::floor(w / s * r + 0.5f) * s;
      const float c = static_cast<float>(stride - 1) / 2;
      base.push_back({c - 0.5f * (w - 1.f), c - 0.5f * (h - 1.f), c + 0.5f * (w - 1.f), c + 0.5f * (h - 1.f)});
    }
  const int64_t count = A * H * W;
  const int64_t pre = std::min<int64_t>(pre_top > 0 ? pre_top : count, count);
  const int64_t keep_max = std::min<int64_t>(post_top, pre);
  const int64_t images_out = multi ? n_images : 1;
  Proposals out{Tensor({images_out * post_top, 5}), Tensor({images_out * post_top, 1})};
  for (int64_t n = 0; n < images_out; ++n) {
    const float* im = &info.data[static_cast<size_t>(n * 3)];
    struct Box {
      float c[4], score;
    };
    std::vector<Box> boxes(static_cast<size_t>(count));
    for (int64_t h = 0; h < H; ++h)
      for (int64_t w = 0; w < W; ++w)
        for (int64_t a = 0; a < A; ++a) {
          auto at = [&](const Tensor& t, int64_t channel) {
            return t.data[static_cast<size_t>(((n * t.shape[1] + channel) * H + h) * W + w)];
          };
          const float sx = static_cast<float>(w * stride), sy = static_cast<float>(h * stride);
          const float x1 = base[a][0] + sx, y1 = base[a][1] + sy, x2 = base[a][2] + sx, y2 = base[a][3] + sy;
          const float bw = x2 - x1 + 1.f, bh = y2 - y1 + 1.f;
          const float cx = x1 + 0.5f * (bw - 1.f), cy = y1 + 0.5f * (bh - 1.f);
          const float px = at(deltas, a * 4) * bw + cx, py = at(deltas, a * 4 + 1) * bh + cy;
          const float pw = std::exp(at(deltas, a * 4 + 2)) * bw, ph = std::exp(at(deltas, a * 4 + 3)) * bh;
          const float raw[4] = {px - 0.5f * (pw - 1.f), py - 0.5f * (ph - 1.f), px + 0.5f * (pw - 1.f),
                                py + 0.5f * (ph - 1.f)};
          Box& b = boxes[static_cast<size_t>((h * W + w) * A + a)];
          for (int k = 0; k < 4; ++k) b.c[k] = std::clamp(raw[k], 0.f, (k % 2 ? im[0] : im[1]) - 1.f);
          b.score = at(cls, A + a);
          if (h >= static_cast<int64_t>(im[0] / static_cast<float>(stride)) ||
              w >= static_cast<int64_t>(im[1] / static_cast<float>(stride)))
            b.score = -1.f;
          const float m = static_cast<float>(min_size) * im[2];
          if (b.c[2] - b.c[0] + 1.f < m || b.c[3] - b.c[1] + 1.f < m) {
            b.c[0] -= m / 2, b.c[1] -= m / 2, b.c[2] += m / 2, b.c[3] += m / 2;
            b.score = -1.f;
          }
        }
    std::vector<int64_t> order(static_cast<size_t>(count));
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int64_t i, int64_t j) {
      return boxes[i].score > boxes[j].score || (boxes[i].score == boxes[j].score && i < j);
    });
    order.resize(static_cast<size_t>(pre));
    auto area = [](const Box& b) { return (b.c[2] - b.c[0] + 1) * (b.c[3] - b.c[1] + 1); };
    std::vector<int64_t> kept;
    std::vector<bool> gone(static_cast<size_t>(pre), false);
    for (int64_t i = 0; i < pre && static_cast<int64_t>(kept.size()) < keep_max; ++i) {
      if (gone[i]) continue;
      kept.push_back(order[i]);
      const Box& a = boxes[order[i]];
      for (int64_t j = i + 1; j < pre; ++j) {
        const Box& b = boxes[order[j]];
        const float iw = std::max(0.f, std::min(a.c[2], b.c[2]) - std::max(a.c[0], b.c[0]) + 1.f);
        const float ih = std::max(0.f, std::min(a.c[3], b.c[3]) - std::max(a.c[1], b.c[1]) + 1.f);
        if (iw * ih / (area(a) + area(b) - iw * ih) > threshold) gone[j] = true;
      }
    }
    for (int64_t i = 0; i < post_top; ++i) {
      const Box& b = boxes[kept[i % kept.size()]];
      float* row = &out.rois.data[static_cast<size_t>((n * post_top + i) * 5)];
      row[0] = multi ? static_cast<float>(n) : 0.f;
      std::copy_n(b.c, 4, row + 1);
      out.scores.data[static_cast<size_t>(n * post_top + i)] = b.score;
    }
  }
  return out;
}

// Scores and deltas for an (n, A, h, w) map, im_info rows (height, width, scale).
struct Inputs {
  Tensor cls, deltas, info;
};

Inputs RandomInputs(int64_t n, int64_t anchors, int64_t h, int64_t w, const std::vector<float>& info, unsigned seed) {
  return {RandomTensor({n, 2 * anchors, h, w}, seed, 0.f, 1.f),
          RandomTensor({n, 4 * anchors, h, w}, seed + 1, -0.5f, 0.5f), Tensor({n, 3}, info)};
}

}  // namespace

TEST_CASE("Proposal's anchors are MXNet's, ratios outer and scales inner, at each place", "[ops][proposal]") {
  // One place scores high (the 9 anchors of place (10, 10), each its own score); zero deltas decode to the
  // anchors themselves, no filter, no suppression: the output is the famous Faster R-CNN anchors shifted by
  // (160, 160), in score order.
  Tensor cls({1, 18, 20, 20}, std::vector<float>(18 * 400, 0.f));
  for (int a = 0; a < 9; ++a) cls.data[static_cast<size_t>(((9 + a) * 20 + 10) * 20 + 10)] = 0.9f - 0.01f * a;
  const Tensor deltas({1, 36, 20, 20}, std::vector<float>(36 * 400, 0.f));
  const Tensor info({1, 3}, {320, 320, 1});
  const Proposals got = RunProposal("_contrib_Proposal",
                                    {{"scales", "(8, 16, 32)"}, {"ratios", "(0.5, 1, 2)"}, {"rpn_min_size", "0"},
                                     {"threshold", "1"}, {"rpn_post_nms_top_n", "9"}},
                                    cls, deltas, info);
  const float famous[9][4] = {{-84, -40, 99, 55},  {-176, -88, 191, 103}, {-360, -184, 375, 199},
                              {-56, -56, 71, 71},   {-120, -120, 135, 135}, {-248, -248, 263, 263},
                              {-36, -80, 51, 95},   {-80, -168, 95, 183},   {-168, -344, 183, 359}};
  Tensor want({9, 5}), want_scores({9, 1});
  for (int a = 0; a < 9; ++a) {
    want_scores.data[static_cast<size_t>(a)] = 0.9f - 0.01f * a;
    want.data[static_cast<size_t>(a * 5)] = 0;
    for (int k = 0; k < 4; ++k)
      want.data[static_cast<size_t>(a * 5 + 1 + k)] = std::clamp(famous[a][k] + 160.f, 0.f, 319.f);
  }
  ExpectClose(got.rois, want, "the anchors of place (10, 10)", 0.0);
  ExpectClose(got.scores, want_scores, "scores", 0.0);
}

TEST_CASE("Proposal pads by cycling through the kept boxes", "[ops][proposal]") {
  // One 16x16 anchor per place on a 1x2 map: boxes [0, 0, 15, 15] and [16, 0, 31, 15], scores 0.2, 0.7.
  const Tensor cls({1, 2, 1, 2}, {0.8f, 0.3f, 0.2f, 0.7f});
  const Tensor deltas({1, 4, 1, 2}, std::vector<float>(8, 0.f));
  const Tensor info({1, 3}, {16, 32, 1});
  const AttrMap attrs{{"scales", "(1,)"}, {"ratios", "(1,)"}, {"rpn_post_nms_top_n", "5"}, {"rpn_min_size", "4"}};
  const Proposals apart = RunProposal("_contrib_Proposal", attrs, cls, deltas, info);
  const std::vector<float> right = {0, 16, 0, 31, 15}, left = {0, 0, 0, 15, 15};
  std::vector<float> rows;
  for (const auto* r : {&right, &left, &right, &left, &right}) rows.insert(rows.end(), r->begin(), r->end());
  ExpectClose(apart.rois, Tensor({5, 5}, rows), "both kept, then again", 0.0);
  ExpectClose(apart.scores, Tensor({5, 1}, {0.7f, 0.2f, 0.7f, 0.2f, 0.7f}), "their scores", 0.0);
  // A delta moves the left box onto the right one (IoU 1 > 0.7): one box kept, every row is it.
  Tensor shift = deltas;
  shift.data[0] = 1.f;  // dx of place 0: one width to the right
  const Proposals one = RunProposal("_contrib_Proposal", attrs, cls, shift, info);
  rows.clear();
  for (int i = 0; i < 5; ++i) rows.insert(rows.end(), right.begin(), right.end());
  ExpectClose(one.rois, Tensor({5, 5}, rows), "one kept", 0.0);
}

TEST_CASE("Proposal drops places past im_info and grows boxes below min_size", "[ops][proposal]") {
  const Tensor cls({1, 2, 1, 3}, {0, 0, 0, 0.9f, 0.8f, 0.5f});
  Tensor deltas({1, 4, 1, 3}, std::vector<float>(12, 0.f));
  deltas.data[2 * 3 + 1] = std::log(0.25f);  // place 1's width shrinks to 4: below min_size 8
  // im_info's width 40 covers places 0 and 1 (40 / 16 = 2.5): place 2 scores -1.
  const Proposals got = RunProposal("_contrib_Proposal",
                                    {{"scales", "(1,)"}, {"ratios", "(1,)"}, {"rpn_min_size", "4"}, {"threshold", "1"},
                                     {"rpn_post_nms_top_n", "3"}},
                                    cls, deltas, Tensor({1, 3}, {16, 40, 2}));
  // Place 1: centre 23.5, width 4 -> [22, 25], widened by min_size * scale / 2 = 4 on each side.
  ExpectClose(got.rois, Tensor({3, 5}, {0, 0, 0, 15, 15, 0, 18, -4, 29, 19, 0, 32, 0, 39, 15}), "rois", 1e-6);
  ExpectClose(got.scores, Tensor({3, 1}, {0.9f, -1.f, -1.f}), "scores", 0.0);
}

TEST_CASE("Proposal and MultiProposal match the plain reference", "[ops][proposal]") {
  const std::vector<float> scales{2, 4}, ratios{0.5f, 1, 2};
  const AttrMap attrs{{"scales", "(2, 4)"}, {"ratios", "(0.5, 1, 2)"}, {"feature_stride", "8"},
                      {"rpn_pre_nms_top_n", "150"}, {"rpn_post_nms_top_n", "40"}, {"threshold", "0.6"},
                      {"rpn_min_size", "6"}};
  const Inputs one = RandomInputs(1, 6, 9, 11, {66, 85, 1.2f}, 7);
  const Proposals ref = Reference(scales, ratios, 8, 150, 40, 0.6f, 6, false, one.cls, one.deltas, one.info);
  const Proposals got = RunProposal("_contrib_Proposal", attrs, one.cls, one.deltas, one.info);
  ExpectClose(got.rois, ref.rois, "Proposal rois", 1e-6);
  ExpectClose(got.scores, ref.scores, "Proposal scores", 0.0);

  const Inputs three = RandomInputs(3, 6, 9, 11, {72, 88, 1, 40, 30, 0.5f, 70, 81, 2}, 11);
  const Proposals multi = RunProposal("_contrib_MultiProposal", attrs, three.cls, three.deltas, three.info);
  const Proposals multi_ref = Reference(scales, ratios, 8, 150, 40, 0.6f, 6, true, three.cls, three.deltas, three.info);
  REQUIRE(multi.rois.shape == Shape{120, 5});
  ExpectClose(multi.rois, multi_ref.rois, "MultiProposal rois", 1e-6);
  ExpectClose(multi.scores, multi_ref.scores, "MultiProposal scores", 0.0);
  // Every candidate, and more rows than candidates (padding).
  const Inputs small = RandomInputs(1, 6, 3, 2, {24, 16, 1}, 13);
  const AttrMap all{{"scales", "(2, 4)"}, {"ratios", "(0.5, 1, 2)"}, {"feature_stride", "8"},
                    {"rpn_pre_nms_top_n", "-1"}, {"rpn_post_nms_top_n", "50"}, {"rpn_min_size", "2"}};
  ExpectClose(RunProposal("_contrib_Proposal", all, small.cls, small.deltas, small.info).rois,
              Reference(scales, ratios, 8, -1, 50, 0.7f, 2, false, small.cls, small.deltas, small.info).rois,
              "every candidate, padded", 1e-6);
}

TEST_CASE("Proposal refuses what MXNet refuses", "[ops][proposal]") {
  const Inputs two = RandomInputs(2, 12, 4, 4, {64, 64, 1, 64, 64, 1}, 3);
  GraphBuilder g;
  g.Output(g.Op("_contrib_Proposal", "rois", {},
                {g.Variable("cls_prob"), g.Variable("bbox_pred"), g.Variable("im_info")}));
  ExpectMessage(FailureOf([&] { Run(g, {two.cls, two.deltas, two.info}); }), "rois", {"one image", "MultiProposal"});
  // 12 anchors by default: 4 scales x 3 ratios.
  const Inputs wrong = RandomInputs(1, 9, 4, 4, {64, 64, 1}, 3);
  ExpectMessage(FailureOf([&] { Run(g, {wrong.cls, wrong.deltas, wrong.info}); }), "rois", {"channels"});
  // im_info taller than the map covers (80 / 16 = 5 rows of 4): MXNet fails the run.
  const Inputs tall = RandomInputs(1, 12, 4, 4, {80, 64, 1}, 3);
  ExpectMessage(FailureOf([&] { Run(g, {tall.cls, tall.deltas, tall.info}); }), "rois", {"im_info", "4x4"});
}
