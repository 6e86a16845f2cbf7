// _contrib_MultiBoxPrior and _contrib_MultiBoxDetection on cases worked out by hand from MXNet 1.9.1's
// definitions (src/operator/contrib/multibox_*); the conformance suite holds a symbolic SSD to MXNet.
#include <cmath>

#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

Tensor RunDetection(const Tensor& cls, const Tensor& loc, const Tensor& anchors, const AttrMap& attrs) {
  GraphBuilder g;
  const int c = g.Variable("cls_prob"), l = g.Variable("loc_pred"), a = g.Variable("anchor");
  g.Output(g.Op("_contrib_MultiBoxDetection", "op0", attrs, {c, l, a}));
  return Run(g, {cls, loc, anchors}).at(0);
}

// Four anchors, three classes (0 is the background): anchor 2 scores below the threshold, anchors 0
// and 3 tie at 0.8 in class 0 and overlap (IoU 0.82), anchor 1 is anchor 0's box in class 1.
const Tensor kCls({1, 3, 4}, {0.1f, 0.2f, 0.5f, 0.1f,     // background, per anchor
                              0.8f, 0.1f, 0.005f, 0.8f,   // class 0
                              0.1f, 0.7f, 0.005f, 0.1f}); // class 1
const Tensor kAnchors({1, 4, 4}, {0, 0, 0.5f, 0.5f, 0, 0, 0.5f, 0.5f, 0.2f, 0.2f, 0.4f, 0.4f, 0.05f, 0, 0.55f, 0.5f});
const Tensor kNoOffsets({1, 16}, std::vector<float>(16, 0.f));

std::vector<float> Row(float id, float score, const float* box) { return {id, score, box[0], box[1], box[2], box[3]}; }

Tensor Rows(const std::vector<std::vector<float>>& rows) {
  std::vector<float> data;
  for (const auto& r : rows) data.insert(data.end(), r.begin(), r.end());
  while (data.size() < 24) data.push_back(-1.f);
  return Tensor({1, 4, 6}, data);
}

}  // namespace

TEST_CASE("MultiBoxPrior: sizes at the first ratio, then the other ratios at the first size", "[ops][multibox]") {
  const Tensor data = RandomTensor({1, 3, 2, 2}, 1);
  const Tensor got = RunUnary("_contrib_MultiBoxPrior", {{"sizes", "(0.5, 0.25)"}, {"ratios", "(1, 4)"}}, data);
  REQUIRE(got.shape == Shape{1, 12, 4});
  // Place (row 0, column 0), centre (0.25, 0.25); steps are 1/2.
  ExpectClose(Tensor({3, 4}, std::vector<float>(got.data.begin(), got.data.begin() + 12)),
              Tensor({3, 4}, {0, 0, 0.5f, 0.5f, 0.125f, 0.125f, 0.375f, 0.375f, -0.25f, 0.125f, 0.75f, 0.375f}),
              "anchors of the first place", 0.0);
  // Place (row 1, column 0) comes after (0, 1): centre (0.25, 0.75).
  ExpectClose(Tensor({1, 4}, std::vector<float>(got.data.begin() + 24, got.data.begin() + 28)),
              Tensor({1, 4}, {0, 0.5f, 0.5f, 1.f}), "first anchor of the third place", 0.0);
  // clip, explicit steps and offsets, a non-square map (widths scale by height / width).
  const Tensor wide = RandomTensor({1, 1, 1, 2}, 2);
  ExpectClose(RunUnary("_contrib_MultiBoxPrior",
                       {{"sizes", "(0.5,)"}, {"clip", "True"}, {"steps", "(1, 0.5)"}, {"offsets", "(0, 0)"}}, wide),
              Tensor({1, 2, 4}, {0, 0, 0.125f, 0.25f, 0.375f, 0, 0.625f, 0.25f}), "clipped, steps, offsets", 0.0);
}

TEST_CASE("MultiBoxDetection: threshold, order, per-class suppression, topk, no NMS", "[ops][multibox]") {
  const float* a = kAnchors.data.data();
  // Zero offsets decode to the anchors, up to float rounding of (center - half width).
  // Scores sorted descending, the tie in anchor order; anchor 3 suppressed by anchor 0 (same class).
  ExpectClose(RunDetection(kCls, kNoOffsets, kAnchors, {}),
              Rows({Row(0, 0.8f, a), Row(-1, 0.8f, a + 12), Row(1, 0.7f, a + 4)}), "default", 1e-6);
  // force_suppress: anchor 1 (class 1) too.
  ExpectClose(RunDetection(kCls, kNoOffsets, kAnchors, {{"force_suppress", "True"}}),
              Rows({Row(0, 0.8f, a), Row(-1, 0.8f, a + 12), Row(-1, 0.7f, a + 4)}), "force_suppress", 1e-6);
  // nms_topk=1: the rows past it keep their packed (anchor-order) contents with the class cleared.
  ExpectClose(RunDetection(kCls, kNoOffsets, kAnchors, {{"nms_topk", "1"}}),
              Rows({Row(0, 0.8f, a), Row(-1, 0.7f, a + 4), Row(-1, 0.8f, a + 12)}), "nms_topk", 1e-6);
  // nms_threshold 0: no sorting and no suppression, the valid rows in anchor order.
  ExpectClose(RunDetection(kCls, kNoOffsets, kAnchors, {{"nms_threshold", "0"}}),
              Rows({Row(0, 0.8f, a), Row(1, 0.7f, a + 4), Row(0, 0.8f, a + 12)}), "no NMS", 1e-6);
}

TEST_CASE("MultiBoxDetection decodes with the variances and clips on request", "[ops][multibox]") {
  const Tensor cls({1, 2, 1}, {0.1f, 0.9f});
  const Tensor anchor({1, 1, 4}, {0.2f, 0.2f, 0.6f, 0.4f});
  // x: 1 * 0.1 * 0.4 + 0.4; y: -1 * 0.1 * 0.2 + 0.3; width: exp(ln 2) * 0.4; height: 0.2.
  const Tensor loc({1, 4}, {1.f, -1.f, std::log(2.f) / 0.2f, 0.f});
  ExpectClose(RunDetection(cls, loc, anchor, {}), Tensor({1, 1, 6}, {0, 0.9f, 0.04f, 0.18f, 0.84f, 0.38f}), "decode",
              1e-5);
  const Tensor far({1, 4}, {5.f, 0.f, 0.f, 0.f});
  ExpectClose(RunDetection(cls, far, anchor, {{"clip", "False"}}), Tensor({1, 1, 6}, {0, 0.9f, 0.4f, 0.2f, 0.8f, 0.4f}),
              "no clip", 1e-5);
  ExpectClose(RunDetection(cls, far, anchor, {}), Tensor({1, 1, 6}, {0, 0.9f, 0.4f, 0.2f, 0.8f, 0.4f}), "clip", 1e-5);
  ExpectClose(RunDetection(cls, far, anchor, {{"variances", "(0.5, 0.1, 0.2, 0.2)"}}),
              Tensor({1, 1, 6}, {0, 0.9f, 1.f, 0.2f, 1.f, 0.4f}), "clip past the edge", 1e-5);
}

TEST_CASE("MultiBox operators refuse inconsistent inputs and attributes, naming the node", "[ops][multibox]") {
  ExpectMessage(FailureOf([&] { RunDetection(kCls, Tensor({1, 12}), kAnchors, {}); }), "op0", {"same anchors"});
  ExpectMessage(FailureOf([&] { RunDetection(kCls, kNoOffsets, kAnchors, {{"variances", "(0.1, 0.2)"}}); }), "op0",
                {"variances"});
  const Tensor data = RandomTensor({1, 3, 2, 2}, 3);
  ExpectMessage(FailureOf([&] { RunUnary("_contrib_MultiBoxPrior", {{"steps", "(0.5, -1)"}}, data); }), "op0",
                {"steps"});
  ExpectMessage(FailureOf([&] { RunUnary("_contrib_MultiBoxPrior", {{"ratios", "(1, 0)"}}, data); }), "op0",
                {"ratios"});
  ExpectMessage(FailureOf([&] { RunUnary("_contrib_MultiBoxPrior", {}, RandomTensor({3, 4}, 4)); }), "op0", {"4-D"});
}
