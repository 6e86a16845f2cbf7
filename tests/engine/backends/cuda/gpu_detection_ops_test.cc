// The CUDA kernels of the detection and remaining operators against the CPU backend: _contrib_box_nms,
// _contrib_MultiBoxPrior and _contrib_MultiBoxDetection, _contrib_Proposal, _contrib_MultiProposal,
// ROIPooling, _contrib_box_decode, where, L2Normalization, LeakyReLU prelu, amp_cast and amp_multicast. The same
// graph runs on cpu(0) and gpu(0) on the same inputs. Where the GPU kernel does the CPU's arithmetic
// operation for operation (box_nms, where, prelu, the AMP roundings) the outputs must be identical
// bit for bit; elsewhere (exp, sums in another order) within qv_test::Compare's FP32 bound.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "quiver/c_api.h"
#include "gpu_vs_cpu.h"
#include "support/single_op.h"

namespace {

using qv_ref::Tensor;
using qv_test::AttrMap;
using qv_test::ExpectGpuMatchesCpu;
using qv_test::GraphBuilder;
using qv_test::Match;
using Params = std::map<std::string, Tensor>;

// ---- _contrib_box_nms ------------------------------------------------------------------------------

struct BoxSpec {
  int64_t width = 6;
  int coord_start = 2, score_index = 1, id_index = 0;  // id_index < 0: no id column is written
  bool center = false;
  int clusters = 8;           // boxes crowd around this many centres: many overlaps
  float score_step = 1 / 16.f;  // scores are multiples of it: many ties
  float score_lo = -0.25f;    // some invalid rows
  int classes = 3;
};

// Rows of `spec.width` floats per box, `shape` = (..., boxes, width).
Tensor RandomBoxes(const qv_ref::Shape& shape, const BoxSpec& spec, std::mt19937* rng) {
  std::uniform_real_distribution<float> unit(0.f, 1.f);
  Tensor t(shape);
  const int64_t rows = t.size() / spec.width;
  std::vector<float> cx(static_cast<size_t>(spec.clusters)), cy(cx.size());
  for (size_t c = 0; c < cx.size(); ++c) {
    cx[c] = unit(*rng);
    cy[c] = unit(*rng);
  }
  for (int64_t r = 0; r < rows; ++r) {
    float* row = &t.data[static_cast<size_t>(r * spec.width)];
    for (int64_t w = 0; w < spec.width; ++w) row[w] = unit(*rng);  // columns nobody reads
    const size_t c = static_cast<size_t>(unit(*rng) * static_cast<float>(spec.clusters)) % cx.size();
    const float x = cx[c] + 0.04f * (unit(*rng) - 0.5f), y = cy[c] + 0.04f * (unit(*rng) - 0.5f);
    // Now and then a degenerate box (negative width), whose area counts as 0.
    const float w = unit(*rng) < 0.02f ? -0.05f : 0.05f + 0.25f * unit(*rng), h = 0.05f + 0.25f * unit(*rng);
    float* box = row + spec.coord_start;
    if (spec.center) {
      box[0] = x;
      box[1] = y;
      box[2] = w;
      box[3] = h;
    } else {
      box[0] = x - w / 2;
      box[1] = y - h / 2;
      box[2] = x + w / 2;
      box[3] = y + h / 2;
    }
    row[spec.score_index] =
        spec.score_lo + spec.score_step * std::floor(unit(*rng) * (1.f - spec.score_lo) / spec.score_step);
    if (spec.id_index >= 0) row[spec.id_index] = std::floor(unit(*rng) * static_cast<float>(spec.classes));
  }
  return t;
}

void ExpectBoxNms(const AttrMap& attrs, const Tensor& boxes) {
  INFO("box_nms on " << qv_ref::ShapeToString(boxes.shape) << " with " << [&] {
    std::string s;
    for (const auto& [k, v] : attrs) s += k + "=" + v + " ";
    return s;
  }());
  GraphBuilder g;
  g.Output(g.Op("_contrib_box_nms", "nms", attrs, {g.Variable("data")}));
  ExpectGpuMatchesCpu(g, {}, {boxes}, Match::kExact);
}

TEST_CASE("GPU box_nms is the CPU's bit for bit: thresholds, topk, classes, formats", "[gpu][detection]") {
  std::mt19937 rng(21);
  const BoxSpec spec;
  const Tensor boxes = RandomBoxes({2, 300, 6}, spec, &rng);
  const std::vector<AttrMap> cases = {
      {},
      {{"overlap_thresh", "0.3"}},
      {{"overlap_thresh", "0.7"}, {"valid_thresh", "0.3"}},
      {{"topk", "5"}},
      {{"topk", "100"}, {"overlap_thresh", "0.45"}},
      {{"topk", "1"}},
      {{"topk", "0"}},
      {{"topk", "1000"}},
      {{"id_index", "0"}},
      {{"id_index", "0"}, {"force_suppress", "True"}},
      {{"id_index", "0"}, {"background_id", "0"}},
      {{"id_index", "0"}, {"background_id", "2"}, {"force_suppress", "True"}, {"topk", "50"}},
      {{"out_format", "center"}},
      {{"valid_thresh", "-1"}, {"overlap_thresh", "0.6"}},
      {{"overlap_thresh", "0"}},
      {{"overlap_thresh", "1"}},
  };
  for (const AttrMap& attrs : cases) ExpectBoxNms(attrs, boxes);
}

TEST_CASE("GPU box_nms is the CPU's bit for bit on center boxes and other row layouts", "[gpu][detection]") {
  std::mt19937 rng(22);
  BoxSpec center;
  center.center = true;
  const Tensor c = RandomBoxes({3, 200, 6}, center, &rng);
  ExpectBoxNms({{"in_format", "center"}}, c);
  ExpectBoxNms({{"in_format", "center"}, {"out_format", "corner"}, {"id_index", "0"}}, c);
  ExpectBoxNms({{"in_format", "center"}, {"out_format", "center"}, {"topk", "40"}}, c);

  // Coordinates first, then the score, then the class: (x1, y1, x2, y2, score, id, extra).
  BoxSpec moved;
  moved.width = 7;
  moved.coord_start = 0;
  moved.score_index = 4;
  moved.id_index = 5;
  const Tensor m = RandomBoxes({2, 150, 7}, moved, &rng);
  ExpectBoxNms({{"coord_start", "0"}, {"score_index", "4"}, {"id_index", "5"}}, m);
  ExpectBoxNms({{"coord_start", "0"}, {"score_index", "4"}}, m);

  // No id column at all: (score, x1, y1, x2, y2).
  BoxSpec bare;
  bare.width = 5;
  bare.coord_start = 1;
  bare.score_index = 0;
  bare.id_index = -1;
  ExpectBoxNms({{"coord_start", "1"}, {"score_index", "0"}}, RandomBoxes({1, 77, 5}, bare, &rng));

  // Leading batch dimensions are images too.
  ExpectBoxNms({{"id_index", "0"}}, RandomBoxes({2, 2, 64, 6}, BoxSpec(), &rng));
}

TEST_CASE("GPU box_nms is the CPU's bit for bit on ties, signed zeros and tiny inputs", "[gpu][detection]") {
  std::mt19937 rng(23);
  // Every score equal: the order is the rows' own.
  BoxSpec flat;
  flat.score_step = 2.f;
  flat.score_lo = 0.5f;
  ExpectBoxNms({}, RandomBoxes({2, 500, 6}, flat, &rng));
  ExpectBoxNms({{"topk", "17"}, {"id_index", "0"}}, RandomBoxes({2, 500, 6}, flat, &rng));

  // +0 and -0 tie with each other (valid when valid_thresh < 0).
  Tensor zeros = RandomBoxes({1, 40, 6}, BoxSpec(), &rng);
  for (int64_t r = 0; r < 40; ++r)
    zeros.data[static_cast<size_t>(r * 6 + 1)] = r % 3 == 0 ? -0.f : (r % 3 == 1 ? 0.f : 0.5f);
  ExpectBoxNms({{"valid_thresh", "-0.5"}}, zeros);

  // One box; one image of identical boxes; nothing valid.
  ExpectBoxNms({}, RandomBoxes({1, 1, 6}, BoxSpec(), &rng));
  Tensor same(qv_ref::Shape{1, 9, 6});
  for (int64_t r = 0; r < 9; ++r) {
    const float row[6] = {1.f, 0.9f - 0.1f * static_cast<float>(r % 2), 0.1f, 0.1f, 0.4f, 0.5f};
    std::memcpy(&same.data[static_cast<size_t>(r * 6)], row, sizeof row);
  }
  ExpectBoxNms({}, same);
  ExpectBoxNms({{"overlap_thresh", "1"}}, same);
  ExpectBoxNms({{"valid_thresh", "2"}}, RandomBoxes({2, 30, 6}, BoxSpec(), &rng));
}

TEST_CASE("GPU box_nms is the CPU's bit for bit at SSD sizes", "[gpu][detection]") {
  std::mt19937 rng(24);
  BoxSpec ssd;
  ssd.clusters = 40;
  ssd.score_step = 1 / 1024.f;
  ssd.classes = 20;
  const AttrMap head = {{"overlap_thresh", "0.45"}, {"valid_thresh", "0.01"}, {"topk", "400"}, {"id_index", "0"},
                        {"background_id", "-1"}, {"force_suppress", "False"}};
  ExpectBoxNms(head, RandomBoxes({1, 6132, 6}, ssd, &rng));
  ExpectBoxNms(head, RandomBoxes({4, 6132, 6}, ssd, &rng));
  AttrMap all = head;
  all.erase("topk");
  all["force_suppress"] = "True";
  ExpectBoxNms(all, RandomBoxes({2, 6132, 6}, ssd, &rng));
  ExpectBoxNms({{"overlap_thresh", "0.5"}, {"id_index", "0"}}, RandomBoxes({1, 3000, 6}, BoxSpec(), &rng));
  // More rows than a sort of one power of two beyond 8192.
  ExpectBoxNms({{"topk", "200"}, {"id_index", "0"}}, RandomBoxes({1, 9000, 6}, ssd, &rng));
}

// ---- _contrib_box_decode ---------------------------------------------------------------------------

// ---- _contrib_MultiBoxPrior and _contrib_MultiBoxDetection -----------------------------------------

TEST_CASE("GPU MultiBoxPrior matches the CPU: sizes, ratios, steps, offsets, clip", "[gpu][detection]") {
  std::mt19937 rng(40);
  for (const AttrMap& attrs : {AttrMap{{"sizes", "(0.2, 0.272)"}, {"ratios", "(1, 2, 0.5)"}},
                               AttrMap{{"sizes", "(0.5,)"}, {"clip", "True"}, {"steps", "(0.1, 0.05)"}},
                               AttrMap{{"sizes", "(0.9, 0.3)"}, {"offsets", "(0.2, 0.7)"}}}) {
    GraphBuilder g;
    g.Output(g.Op("_contrib_MultiBoxPrior", "prior", attrs, {g.Variable("data")}));
    ExpectGpuMatchesCpu(g, {}, {qv_test::Random({1, 4, 5, 7}, &rng)}, Match::kExact);
  }
}

TEST_CASE("GPU MultiBoxDetection decides as the CPU: ties, classes, topk, forced suppression", "[gpu][detection]") {
  std::mt19937 rng(41);
  std::uniform_real_distribution<float> unit(0.f, 1.f);
  const int64_t batch = 2, classes = 4, anchors = 1500;
  // Probabilities on a coarse grid (many ties) and anchors crowded around a few centres (many overlaps).
  Tensor cls({batch, classes, anchors}), loc({batch, anchors * 4}), boxes({1, anchors, 4});
  for (float& v : cls.data) v = std::floor(unit(rng) * 16.f) / 16.f;
  for (float& v : loc.data) v = unit(rng) - 0.5f;
  for (int64_t a = 0; a < anchors; ++a) {
    const float cx = 0.25f * static_cast<float>(a % 4) + 0.1f, cy = 0.3f + 0.05f * unit(rng);
    const float w = 0.1f + 0.2f * unit(rng), h = 0.1f + 0.2f * unit(rng);
    float* b = &boxes.data[static_cast<size_t>(a * 4)];
    b[0] = cx - w / 2, b[1] = cy - h / 2, b[2] = cx + w / 2, b[3] = cy + h / 2;
  }
  for (const AttrMap& attrs : {AttrMap{}, AttrMap{{"nms_topk", "100"}, {"threshold", "0.2"}},
                               AttrMap{{"force_suppress", "True"}, {"clip", "False"}}, AttrMap{{"nms_threshold", "0"}}}) {
    GraphBuilder g;
    g.Output(g.Op("_contrib_MultiBoxDetection", "det", attrs,
                  {g.Variable("cls_prob"), g.Variable("loc_pred"), g.Variable("anchor")}));
    // The decode's exp may differ by an ulp between the two: boxes within the FP32 bound.
    ExpectGpuMatchesCpu(g, {}, {cls, loc, boxes});
  }
}

// ---- _contrib_Proposal, _contrib_MultiProposal and ROIPooling --------------------------------------

// RPN outputs for an (n, A, h, w) map: foreground scores on a coarse grid when `ties` (many equal
// scores), deltas of about 0.3, and im_info rows (height, width, scale).
std::vector<Tensor> RpnInputs(int64_t n, int64_t anchors, int64_t h, int64_t w, const std::vector<float>& info,
                              bool ties, std::mt19937* rng) {
  std::uniform_real_distribution<float> unit(0.f, 1.f);
  Tensor cls({n, 2 * anchors, h, w}), deltas({n, 4 * anchors, h, w});
  for (float& v : cls.data) v = ties ? std::floor(unit(*rng) * 8.f) / 8.f : unit(*rng);
  for (float& v : deltas.data) v = 0.6f * (unit(*rng) - 0.5f);
  return {cls, deltas, Tensor({n, 3}, info)};
}

void ExpectProposal(const std::string& op, const AttrMap& attrs, const std::vector<Tensor>& inputs) {
  GraphBuilder g;
  const int node = g.Op(op, "rois", attrs, {g.Variable("cls_prob"), g.Variable("bbox_pred"), g.Variable("im_info")});
  g.Output({node, 0});
  if (attrs.count("output_score")) g.Output({node, 1});
  // The decode's exp may differ by an ulp between the two: boxes within the FP32 bound.
  ExpectGpuMatchesCpu(g, {}, inputs);
}

TEST_CASE("GPU Proposal decides as the CPU: anchors, ties, im_info, min_size, padding, iou_loss",
          "[gpu][detection]") {
  std::mt19937 rng(42);
  const AttrMap small{{"scales", "(2, 4, 8)"}, {"ratios", "(0.5, 1, 2)"}, {"feature_stride", "8"},
                      {"rpn_post_nms_top_n", "100"}, {"rpn_min_size", "6"}, {"output_score", "True"}};
  ExpectProposal("_contrib_Proposal", small, RpnInputs(1, 9, 24, 31, {180, 239, 1}, false, &rng));
  ExpectProposal("_contrib_Proposal", small, RpnInputs(1, 9, 24, 31, {150, 201, 0.8f}, true, &rng));
  ExpectProposal("_contrib_Proposal",
                 AttrMap{{"rpn_pre_nms_top_n", "300"}, {"rpn_post_nms_top_n", "50"}, {"threshold", "0.5"}},
                 RpnInputs(1, 12, 30, 38, {470, 600, 1.6f}, false, &rng));
  // Fewer candidates than rows: the kept boxes again, cycling; corner deltas.
  ExpectProposal("_contrib_Proposal",
                 AttrMap{{"scales", "(8,)"}, {"ratios", "(1, 2)"}, {"rpn_post_nms_top_n", "40"},
                         {"output_score", "True"}},
                 RpnInputs(1, 2, 3, 4, {48, 60, 1}, false, &rng));
  ExpectProposal("_contrib_Proposal",
                 AttrMap{{"scales", "(8,)"}, {"ratios", "(1,)"}, {"iou_loss", "True"}, {"rpn_post_nms_top_n", "30"}},
                 RpnInputs(1, 1, 9, 9, {144, 140, 1}, false, &rng));
}

TEST_CASE("GPU MultiProposal decides as the CPU per image", "[gpu][detection]") {
  std::mt19937 rng(43);
  ExpectProposal("_contrib_MultiProposal",
                 AttrMap{{"scales", "(4, 8)"}, {"ratios", "(0.5, 1, 2)"}, {"rpn_pre_nms_top_n", "400"},
                         {"rpn_post_nms_top_n", "80"}, {"output_score", "True"}},
                 RpnInputs(3, 6, 14, 17, {224, 272, 1, 100, 150, 0.5f, 210, 260, 2}, false, &rng));
}

TEST_CASE("GPU ROIPooling is the CPU's bit for bit: scales, bins, off-map ROIs, bad images", "[gpu][detection]") {
  std::mt19937 rng(44);
  std::uniform_real_distribution<float> at(-40.f, 250.f), extent(-10.f, 160.f);
  std::vector<float> rows;
  for (int i = 0; i < 64; ++i) {
    const float x = at(rng), y = at(rng);
    rows.insert(rows.end(), {static_cast<float>(i % 4) - 1.f, x, y, x + extent(rng), y + extent(rng)});
  }
  const Tensor data = qv_test::Random({2, 8, 13, 15}, &rng), rois({64, 5}, rows);
  for (const AttrMap& attrs : {AttrMap{{"pooled_size", "(7, 7)"}, {"spatial_scale", "0.0625"}},
                               AttrMap{{"pooled_size", "(3, 5)"}, {"spatial_scale", "0.1"}},
                               AttrMap{{"pooled_size", "(2, 2)"}, {"spatial_scale", "1"}}}) {
    GraphBuilder g;
    g.Output(g.Op("ROIPooling", "roi_pool", attrs, {g.Variable("data"), g.Variable("rois")}));
    ExpectGpuMatchesCpu(g, {}, {data, rois}, Match::kExact);
  }
}

TEST_CASE("GPU box_decode matches the CPU: center and corner anchors, stds, clip, anchors as a parameter",
          "[gpu][detection]") {
  std::mt19937 rng(25);
  for (const char* format : {"center", "corner"})
    for (const char* clip : {"-1", "0.2"}) {
      INFO("format " << format << ", clip " << clip);
      const AttrMap attrs = {{"std0", "0.1"}, {"std1", "0.1"}, {"std2", "0.2"}, {"std3", "0.2"},
                             {"format", format}, {"clip", clip}};
      Tensor anchors = qv_test::Random({1, 500, 4}, &rng, 0.1f, 0.5f);
      if (std::string(format) == "corner")
        for (int64_t i = 0; i < 500; ++i) {
          anchors.data[static_cast<size_t>(i * 4 + 2)] += anchors.data[static_cast<size_t>(i * 4)];
          anchors.data[static_cast<size_t>(i * 4 + 3)] += anchors.data[static_cast<size_t>(i * 4 + 1)];
        }
      const Tensor offsets = qv_test::Random({3, 500, 4}, &rng, -2.f, 2.f);
      GraphBuilder g;
      g.Output(g.Op("_contrib_box_decode", "decode", attrs, {g.Variable("data"), g.Variable("anchors")}));
      ExpectGpuMatchesCpu(g, {}, {offsets, anchors});
      // The anchors as a parameter: the kernel reads their device copy.
      ExpectGpuMatchesCpu(g, {{"anchors", anchors}}, {offsets});
    }
  GraphBuilder g;
  g.Output(g.Op("_contrib_box_decode", "decode", {}, {g.Variable("data"), g.Variable("anchors")}));
  ExpectGpuMatchesCpu(g, {}, {qv_test::Random({1, 6132, 4}, &rng), qv_test::Random({1, 6132, 4}, &rng, 0.1f, 0.5f)});
}

// ---- where -----------------------------------------------------------------------------------------

TEST_CASE("GPU where is the CPU's bit for bit: elementwise and row conditions", "[gpu]") {
  std::mt19937 rng(26);
  std::bernoulli_distribution coin(0.5);
  auto condition = [&](const qv_ref::Shape& shape) {
    Tensor c(shape);
    for (float& v : c.data) v = coin(rng) ? 0.f : (coin(rng) ? 1.f : -0.25f);
    return c;
  };
  for (const qv_ref::Shape& shape : {qv_ref::Shape{7}, qv_ref::Shape{3, 4, 5}, qv_ref::Shape{2, 1000}}) {
    INFO(qv_ref::ShapeToString(shape));
    GraphBuilder g;
    g.Output(g.Op("where", "pick", {}, {g.Variable("condition"), g.Variable("x"), g.Variable("y")}));
    ExpectGpuMatchesCpu(g, {}, {condition(shape), qv_test::Random(shape, &rng), qv_test::Random(shape, &rng)},
                        Match::kExact);
    // A 1-D condition over the first axis picks whole rows.
    ExpectGpuMatchesCpu(g, {}, {condition({shape[0]}), qv_test::Random(shape, &rng), qv_test::Random(shape, &rng)},
                        Match::kExact);
  }
  // The condition as a parameter.
  GraphBuilder g;
  g.Output(g.Op("where", "pick", {}, {g.Variable("mask"), g.Variable("x"), g.Variable("y")}));
  ExpectGpuMatchesCpu(g, {{"mask", condition({4, 6})}}, {qv_test::Random({4, 6}, &rng), qv_test::Random({4, 6}, &rng)},
                      Match::kExact);
}

// ---- L2Normalization -------------------------------------------------------------------------------

TEST_CASE("GPU L2Normalization matches the CPU: instance, channel and spatial, eps, short and long lanes", "[gpu]") {
  std::mt19937 rng(27);
  struct Case {
    AttrMap attrs;
    qv_ref::Shape shape;
  };
  const std::vector<Case> cases = {
      {{}, {2, 3, 4, 5}},                                    // instance, a lane of 60 (a thread each)
      {{}, {2, 64, 20, 20}},                                 // instance, a lane of 25600 (a block each)
      {{{"mode", "instance"}, {"eps", "0.5"}}, {3, 7}},      // 2-D
      {{{"mode", "channel"}}, {2, 512, 19, 19}},             // SSD's conv4_3 normalisation, smaller
      {{{"mode", "channel"}, {"eps", "1e-3"}}, {4, 300}},    // channel of 2-D data: contiguous lanes
      {{{"mode", "channel"}}, {2, 5, 3}},
      {{{"mode", "spatial"}}, {2, 3, 4, 4}},
      {{{"mode", "spatial"}}, {2, 3, 30, 30}},
      {{{"mode", "spatial"}, {"eps", "2"}}, {1, 2, 1, 1}},   // eps dominates
  };
  for (const Case& c : cases) {
    INFO(qv_ref::ShapeToString(c.shape) << (c.attrs.count("mode") ? " " + c.attrs.at("mode") : " instance"));
    GraphBuilder g;
    g.Output(g.Op("L2Normalization", "norm", c.attrs, {g.Variable("data")}));
    ExpectGpuMatchesCpu(g, {}, {qv_test::Random(c.shape, &rng, -3.f, 3.f)});
  }
}

// ---- LeakyReLU prelu -------------------------------------------------------------------------------

TEST_CASE("GPU LeakyReLU prelu is the CPU's bit for bit: per-channel and shared slopes, 1-D to 4-D", "[gpu]") {
  std::mt19937 rng(28);
  struct Case {
    qv_ref::Shape data;
    int64_t slopes;
  };
  for (const Case& c : std::vector<Case>{{{2, 8, 5, 5}, 8}, {{2, 8, 5, 5}, 1}, {{6, 10}, 10}, {{3, 4, 7}, 4}, {{9}, 9},
                                         {{9}, 1}}) {
    INFO("data " << qv_ref::ShapeToString(c.data) << ", " << c.slopes << " slopes");
    GraphBuilder g;
    g.Output(g.Op("LeakyReLU", "prelu", {{"act_type", "prelu"}}, {g.Variable("data"), g.Variable("prelu_gamma")}));
    ExpectGpuMatchesCpu(g, {{"prelu_gamma", qv_test::Random({c.slopes}, &rng, 0.f, 0.5f)}},
                        {qv_test::Random(c.data, &rng, -2.f, 2.f)}, Match::kExact);
  }
}

// ---- amp_cast, amp_multicast ----------------------------------------------------------------------

TEST_CASE("GPU amp_cast rounds to bfloat16 and float16 as the CPU does, bit for bit", "[gpu]") {
  std::mt19937 rng(29);
  Tensor x = qv_test::Random({4, 250}, &rng, -3.f, 3.f);
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> special = {0.f,     -0.f,     1e-8f,   -3e-6f, 6e-5f,   1e-40f, -1e-45f, 65504.f,
                                      65519.f, 65520.f,  -7e4f,   3e38f,  -3.4e38f, inf,   -inf,    nan,
                                      -nan,    1.00390625f, 1.01171875f, 2049.f, 2051.f, 0.1f};
  for (size_t i = 0; i < special.size(); ++i) x.data[i] = special[i];
  for (const char* dtype : {"bfloat16", "float16", "float32"}) {
    INFO(dtype);
    // Of a data input, not a parameter: the cast stays in the graph (one to float32 is removed), and
    // no arithmetic before it touches the NaNs' payloads.
    GraphBuilder g;
    g.Output(g.Op("amp_cast", "cast", {{"dtype", dtype}}, {g.Variable("data")}));
    ExpectGpuMatchesCpu(g, {}, {x}, Match::kExact);
  }
}

TEST_CASE("GPU amp_multicast and casts of parameters match the CPU", "[gpu]") {
  std::mt19937 rng(30);
  GraphBuilder g;
  const int a = g.Variable("a"), b = g.Variable("b");
  const int cast = g.Op("amp_multicast", "multicast", {{"num_outputs", "2"}}, {a, b});
  g.Output(g.Op("elemwise_add", "sum", {}, {{cast, 0}, {cast, 1}}));
  ExpectGpuMatchesCpu(g, {}, {qv_test::Random({3, 5}, &rng), qv_test::Random({3, 5}, &rng)}, Match::kExact);

  // A weight cast to float16 is rounded once, when the op is created.
  GraphBuilder p;
  const int w = p.Op("amp_cast", "w16", {{"dtype", "float16"}}, {p.Variable("w")});
  p.Output(p.Op("broadcast_mul", "scale", {}, {p.Variable("data"), w}));
  ExpectGpuMatchesCpu(p, {{"w", qv_test::Random({1, 5}, &rng)}}, {qv_test::Random({3, 5}, &rng)}, Match::kExact);
}

// ---- together --------------------------------------------------------------------------------------

TEST_CASE("An SSD-style GPU head (L2Normalization, prelu, box_decode, box_nms) matches the CPU", "[gpu][detection]") {
  std::mt19937 rng(31);
  const int64_t anchors = 1000;
  GraphBuilder g;
  const int feat = g.Variable("features");
  const int norm = g.Op("L2Normalization", "norm", {{"mode", "channel"}}, {feat});
  g.Output(g.Op("LeakyReLU", "act", {{"act_type", "prelu"}}, {norm, g.Variable("act_gamma")}));
  // std2 = std3 = 0: exp(0) is exact on both devices, so the decoded boxes, and with them every
  // suppression decision, are the same (a box nearer the threshold than exp's rounding could flip).
  const int decoded = g.Op("_contrib_box_decode", "decode", {{"std2", "0"}, {"std3", "0"}},
                           {g.Variable("offsets"), g.Variable("anchors")});
  const int dets = g.Op("Concat", "dets", {{"dim", "2"}, {"num_args", "3"}},
                        {g.Variable("ids"), g.Variable("scores"), decoded});
  g.Output(g.Op("_contrib_box_nms", "nms", {{"id_index", "0"}, {"topk", "100"}, {"valid_thresh", "0.05"}}, {dets}));
  const Params params = {{"act_gamma", qv_test::Random({16}, &rng, 0.f, 0.3f)},
                         {"anchors", qv_test::Random({1, anchors, 4}, &rng, 0.1f, 0.4f)}};
  Tensor ids({2, anchors, 1});
  for (float& v : ids.data) v = std::floor(std::uniform_real_distribution<float>(0.f, 4.f)(rng));
  const std::map<std::string, Tensor> named = {{"features", qv_test::Random({2, 16, 6, 6}, &rng)},
                                               {"offsets", qv_test::Random({2, anchors, 4}, &rng, -0.5f, 0.5f)},
                                               {"ids", ids},
                                               {"scores", qv_test::Random({2, anchors, 1}, &rng, 0.f, 1.f)}};
  std::vector<Tensor> inputs;  // in the op's input order
  for (const std::string& name : qv_test::CompiledGraph(g.ToJson(), params).InputNames()) inputs.push_back(named.at(name));
  ExpectGpuMatchesCpu(g, params, inputs);
}

}  // namespace
