// _contrib_box_decode and _contrib_box_nms against plain references written from MXNet's operator
// documentation: decode as the formula per box, NMS as a stable sort followed by greedy suppression.
#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

Tensor RunBinary(const std::string& op, const AttrMap& attrs, const Tensor& a, const Tensor& b) {
  GraphBuilder g;
  const int x = g.Variable("data"), y = g.Variable("anchors");
  g.Output(g.Op(op, "op0", attrs, {x, y}));
  return Run(g, {a, b}).at(0);
}

// Anchors (1, n, 4) in center or corner form, offsets (batch, n, 4) -> corner boxes.
Tensor RefBoxDecode(const Tensor& x, const Tensor& anchors, const float std[4], float clip, bool corner_anchors) {
  Tensor y(x.shape);
  const int64_t n = x.shape[1];
  for (int64_t i = 0; i < x.size() / 4; ++i) {
    const float* a = &anchors.data[(i % n) * 4];
    double cx = a[0], cy = a[1], w = a[2], h = a[3];
    if (corner_anchors) {
      w = a[2] - a[0];
      h = a[3] - a[1];
      cx = a[0] + w / 2;
      cy = a[1] + h / 2;
    }
    const float* d = &x.data[i * 4];
    double dw = d[2] * std[2], dh = d[3] * std[3];
    if (clip > 0) {
      dw = std::min<double>(dw, clip);
      dh = std::min<double>(dh, clip);
    }
    const double ox = d[0] * std[0] * w + cx, oy = d[1] * std[1] * h + cy;
    const double ow = std::exp(dw) * w / 2, oh = std::exp(dh) * h / 2;
    const double out[4] = {ox - ow, oy - oh, ox + ow, oy + oh};
    for (int k = 0; k < 4; ++k) y.data[i * 4 + k] = static_cast<float>(out[k]);
  }
  return y;
}

Tensor RandomAnchors(int64_t n, unsigned seed, bool corner) {
  Tensor a = RandomTensor({1, n, 4}, seed, 0.1f, 0.5f);
  if (corner)
    for (int64_t i = 0; i < n; ++i) {
      a.data[i * 4 + 2] += a.data[i * 4];
      a.data[i * 4 + 3] += a.data[i * 4 + 1];
    }
  return a;
}

}  // namespace

TEST_CASE("box_decode: center and corner anchors, with and without clip", "[ops][detection]") {
  const Tensor x = RandomTensor({2, 7, 4}, 900, -2.f, 2.f);
  const float stds[4] = {0.1f, 0.1f, 0.2f, 0.2f};
  for (bool corner : {false, true}) {
    const Tensor anchors = RandomAnchors(7, corner ? 901 : 902, corner);
    const std::string format = corner ? "corner" : "center";
    AttrMap attrs = {{"std0", "0.1"}, {"std1", "0.1"}, {"std2", "0.2"}, {"std3", "0.2"}, {"format", format}};
    ExpectClose(RunBinary("_contrib_box_decode", attrs, x, anchors), RefBoxDecode(x, anchors, stds, -1, corner),
                "box_decode " + format);
    attrs["clip"] = "0.1";
    ExpectClose(RunBinary("_contrib_box_decode", attrs, x, anchors), RefBoxDecode(x, anchors, stds, 0.1f, corner),
                "box_decode " + format + " clip 0.1");
  }
  ExpectMessage(FailureOf([&] { RunBinary("_contrib_box_decode", {}, x, RandomAnchors(6, 903, false)); }), "op0",
                {"anchors"});
  ExpectMessage(FailureOf([&] { RunBinary("_contrib_box_decode", {{"format", "xywh"}}, x, RandomAnchors(7, 904, false)); }),
                "op0", {"xywh"});
}

namespace {

struct NmsCase {
  float overlap = 0.5f, valid = 0.f;
  int64_t topk = -1, id_index = 0, background_id = -1;
  bool force = false, center_in = false, center_out = false;
};

double Iou(const float* a, const float* b, bool center) {
  auto corners = [&](const float* r) {
    return center ? std::array<double, 4>{r[0] - r[2] / 2., r[1] - r[3] / 2., r[0] + r[2] / 2., r[1] + r[3] / 2.}
                  : std::array<double, 4>{r[0], r[1], r[2], r[3]};
  };
  const auto p = corners(a), q = corners(b);
  const double w = std::max(0.0, std::min(p[2], q[2]) - std::max(p[0], q[0]));
  const double h = std::max(0.0, std::min(p[3], q[3]) - std::max(p[1], q[1]));
  auto area = [](const std::array<double, 4>& r) {
    return r[2] < r[0] || r[3] < r[1] ? 0.0 : (r[2] - r[0]) * (r[3] - r[1]);
  };
  return w * h / (area(p) + area(q) - w * h);
}

// Rows (class, score, 4 coordinates); score_index 1, coord_start 2.
Tensor RefBoxNms(const Tensor& x, const NmsCase& c) {
  const int64_t n = x.shape[x.shape.size() - 2], width = x.shape.back(), batches = x.size() / (n * width);
  Tensor y(x.shape);
  std::fill(y.data.begin(), y.data.end(), -1.f);
  for (int64_t b = 0; b < batches; ++b) {
    const float* rows = &x.data[b * n * width];
    auto row = [&](int64_t i) { return rows + i * width; };
    std::vector<int64_t> order;
    for (int64_t i = 0; i < n; ++i)
      if (row(i)[1] > c.valid && (c.id_index < 0 || row(i)[0] != c.background_id)) order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t d) { return row(a)[1] > row(d)[1]; });
    if (c.topk >= 0 && static_cast<int64_t>(order.size()) > c.topk) order.resize(c.topk);
    std::vector<int64_t> kept;
    for (int64_t i : order) {
      bool keep = true;
      for (int64_t k : kept) {
        const bool same_class = c.force || c.id_index < 0 || int(row(k)[0]) == int(row(i)[0]);
        if (same_class && Iou(row(k) + 2, row(i) + 2, c.center_in) > c.overlap) keep = false;
      }
      if (keep) kept.push_back(i);
    }
    for (size_t j = 0; j < kept.size(); ++j) {
      float* out = &y.data[(b * n + j) * width];
      std::copy(row(kept[j]), row(kept[j]) + width, out);
      float* box = out + 2;
      if (c.center_in != c.center_out && box[0] >= 0) {
        const float p = box[0], q = box[1], r = box[2], s = box[3];
        if (c.center_out) { box[0] = (p + r) / 2; box[1] = (q + s) / 2; box[2] = r - p; box[3] = s - q; }
        else { box[0] = p - r / 2; box[1] = q - s / 2; box[2] = p + r / 2; box[3] = q + s / 2; }
      }
    }
  }
  return y;
}

// Boxes crowded in a small area so that many overlap; classes 0..2 and some background (-1) rows;
// some scores tie exactly, to check the order of ties.
Tensor CrowdedBoxes(const Shape& shape, unsigned seed, bool center) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  Tensor x(shape);
  for (int64_t i = 0; i < x.size() / 6; ++i) {
    float* r = &x.data[i * 6];
    r[0] = static_cast<float>(static_cast<int>(u(rng) * 4) - 1);
    r[1] = i % 5 == 0 ? 0.5f : u(rng);
    const float x0 = u(rng) * 0.6f, y0 = u(rng) * 0.6f, w = 0.2f + u(rng) * 0.2f, h = 0.2f + u(rng) * 0.2f;
    if (center) { r[2] = x0 + w / 2; r[3] = y0 + h / 2; r[4] = w; r[5] = h; }
    else { r[2] = x0; r[3] = y0; r[4] = x0 + w; r[5] = y0 + h; }
  }
  return x;
}

AttrMap NmsAttrs(const NmsCase& c) {
  return {{"overlap_thresh", std::to_string(c.overlap)}, {"valid_thresh", std::to_string(c.valid)},
          {"topk", std::to_string(c.topk)}, {"coord_start", "2"}, {"score_index", "1"},
          {"id_index", std::to_string(c.id_index)}, {"background_id", std::to_string(c.background_id)},
          {"force_suppress", c.force ? "True" : "False"}, {"in_format", c.center_in ? "center" : "corner"},
          {"out_format", c.center_out ? "center" : "corner"}};
}

}  // namespace

TEST_CASE("box_nms: thresholds, topk, classes, background, formats, batches", "[ops][detection]") {
  std::vector<NmsCase> cases(9);
  cases[1].overlap = 0.3f;
  cases[2].topk = 7;
  cases[3].valid = 0.4f;
  cases[4].force = true;
  cases[5].id_index = -1;
  cases[6].background_id = 0;
  cases[7].center_in = true;
  cases[8].center_out = true;
  unsigned seed = 910;
  for (size_t k = 0; k < cases.size(); ++k) {
    for (const Shape& shape : {Shape{40, 6}, Shape{3, 40, 6}, Shape{2, 2, 25, 6}}) {
      const Tensor x = CrowdedBoxes(shape, seed++, cases[k].center_in);
      ExpectClose(RunUnary("_contrib_box_nms", NmsAttrs(cases[k]), x), RefBoxNms(x, cases[k]),
                  "box_nms case " + std::to_string(k) + " on " + qv_ref::ShapeToString(shape));
    }
  }
}

TEST_CASE("box_nms: nothing valid gives all -1, topk 0 copies the input", "[ops][detection]") {
  const Tensor x = CrowdedBoxes({2, 10, 6}, 990, false);
  NmsCase none;
  none.valid = 2.f;
  ExpectClose(RunUnary("_contrib_box_nms", NmsAttrs(none), x), RefBoxNms(x, none), "valid_thresh above every score");
  NmsCase copy;
  copy.topk = 0;
  ExpectClose(RunUnary("_contrib_box_nms", NmsAttrs(copy), x), x, "topk 0");
}

TEST_CASE("box_nms refuses indices outside the rows, naming the node", "[ops][detection]") {
  const Tensor x = CrowdedBoxes({10, 6}, 995, false);
  ExpectMessage(FailureOf([&] { RunUnary("_contrib_box_nms", {{"coord_start", "3"}}, x); }), "op0", {"coord_start"});
  ExpectMessage(FailureOf([&] { RunUnary("_contrib_box_nms", {{"score_index", "3"}}, x); }), "op0", {"score_index"});
  ExpectMessage(FailureOf([&] { RunUnary("_contrib_box_nms", {{"id_index", "1"}}, x); }), "op0", {"id_index"});
  ExpectMessage(FailureOf([&] { RunUnary("_contrib_box_nms", {{"in_format", "xyxy"}}, x); }), "op0", {"xyxy"});
}
