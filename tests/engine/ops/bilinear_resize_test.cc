// _contrib_BilinearResize2D against a reference that interpolates in double from the textbook
// coordinate maps: align_corners y * (H - 1) / (oh - 1); otherwise (y + 0.5) H / oh - 0.5 clamped at 0;
// a 1-pixel output reads position 0. Every mode's output size, and the bf16/int8 plans that contain it.
#include <algorithm>
#include <cmath>

#include "engine/ops/op_test_util.h"
#include "ops/int8_hints.h"

using namespace qv_op_test;

namespace {

double SourcePosition(int64_t i, int64_t in, int64_t out, bool align_corners) {
  if (out == 1) return 0;
  if (align_corners) return double(i) * (in - 1) / (out - 1);
  return std::max(0.0, (i + 0.5) * in / out - 0.5);
}

Tensor RefBilinear(const Tensor& x, int64_t oh, int64_t ow, bool align_corners) {
  const int64_t planes = x.shape[0] * x.shape[1], h = x.shape[2], w = x.shape[3];
  Tensor y({x.shape[0], x.shape[1], oh, ow});
  auto at = [&](int64_t p, int64_t r, int64_t c) { return double(x.data[(p * h + r) * w + c]); };
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        const double sy = SourcePosition(i, h, oh, align_corners), sx = SourcePosition(j, w, ow, align_corners);
        const int64_t r0 = std::min<int64_t>(static_cast<int64_t>(sy), h - 1), c0 = std::min<int64_t>(static_cast<int64_t>(sx), w - 1);
        const int64_t r1 = std::min(r0 + 1, h - 1), c1 = std::min(c0 + 1, w - 1);
        const double ly = sy - r0, lx = sx - c0;
        y.data[(p * oh + i) * ow + j] = static_cast<float>(
            (1 - ly) * ((1 - lx) * at(p, r0, c0) + lx * at(p, r0, c1)) + ly * ((1 - lx) * at(p, r1, c0) + lx * at(p, r1, c1)));
      }
  return y;
}

Tensor RunResize(const AttrMap& attrs, const Tensor& x, const Tensor* like = nullptr, const AttrMap& flags = {}) {
  GraphBuilder g;
  std::vector<qv_test::Entry> ins = {g.Variable("data")};
  if (like) ins.push_back(g.Variable("like"));
  g.Output(g.Op("_contrib_BilinearResize2D", "op0", attrs, ins));
  CompiledGraph net(g.ToJson(), {}, flags);
  return like ? net.Run({x, *like}).at(0) : net.Run({x}).at(0);
}

}  // namespace

TEST_CASE("BilinearResize2D: up and down, both corner conventions, 1-pixel inputs and outputs",
          "[ops][bilinear_resize]") {
  struct Case {
    Shape x;
    int64_t oh, ow;
  };
  const std::vector<Case> cases = {
      {{2, 3, 8, 8}, 64, 64},   // GluonCV's final upsampling, 8x
      {{1, 2, 5, 7}, 12, 9},    // uneven factors
      {{1, 2, 17, 13}, 6, 4},   // downscale
      {{1, 2, 6, 6}, 6, 6},     // same size: a copy
      {{1, 3, 1, 1}, 4, 3},     // 1-pixel input
      {{1, 3, 1, 5}, 3, 8},
      {{1, 2, 6, 7}, 1, 1},     // 1-pixel output
      {{1, 2, 6, 7}, 1, 9},
  };
  for (const Case& c : cases)
    for (bool align : {true, false}) {
      const Tensor x = RandomTensor(c.x, 920 + static_cast<unsigned>(c.oh + c.ow));
      const std::string what = ShapeStr(c.x) + " -> " + std::to_string(c.oh) + "x" + std::to_string(c.ow) +
                               (align ? " align_corners" : " half-pixel");
      AttrMap attrs = {{"height", std::to_string(c.oh)}, {"width", std::to_string(c.ow)}};
      if (!align) attrs["align_corners"] = "False";
      RunCase(what, [&] { ExpectClose(RunResize(attrs, x), RefBilinear(x, c.oh, c.ow, align), what); });
    }
  // align_corners defaults to true in MXNet 1.9.1.
  const Tensor x = RandomTensor({1, 1, 4, 4}, 930);
  ExpectClose(RunResize({{"height", "7"}, {"width", "5"}}, x), RefBilinear(x, 7, 5, true), "default align_corners");
}

TEST_CASE("BilinearResize2D: every mode's output size", "[ops][bilinear_resize]") {
  struct Case {
    AttrMap attrs;
    Shape x;
    int64_t oh, ow;
  };
  const std::vector<Case> cases = {
      {{{"height", "9"}, {"width", "4"}}, {1, 2, 5, 6}, 9, 4},
      {{}, {1, 2, 5, 6}, 1, 1},  // height and width default to 1
      // size with scales: truncated products; height/width are then ignored
      {{{"scale_height", "2.5"}, {"scale_width", "0.5"}, {"height", "3"}}, {1, 2, 5, 7}, 12, 3},
      // MXNet decides both sides on scale_height: a scale_width alone leaves `width` in force
      {{{"scale_width", "3"}, {"height", "4"}, {"width", "6"}}, {1, 2, 5, 7}, 4, 6},
      {{{"mode", "odd_scale"}, {"scale_height", "2"}, {"scale_width", "2"}}, {1, 2, 5, 6}, 9, 12},
      {{{"mode", "odd_scale"}, {"scale_height", "0.5"}, {"scale_width", "0.5"}}, {1, 2, 9, 8}, 5, 4},
      {{{"mode", "to_even_down"}}, {1, 2, 5, 6}, 4, 6},
      {{{"mode", "to_even_up"}}, {1, 2, 5, 6}, 6, 6},
      {{{"mode", "to_odd_down"}}, {1, 2, 5, 6}, 5, 5},
      {{{"mode", "to_odd_up"}}, {1, 2, 5, 6}, 5, 7},
      {{{"mode", "to_odd_up"}, {"align_corners", "False"}}, {1, 2, 4, 3}, 5, 3},
  };
  for (const Case& c : cases) {
    const Tensor x = RandomTensor(c.x, 940);
    const bool align = !c.attrs.count("align_corners");
    std::string what = ShapeStr(c.x);
    for (const auto& [k, v] : c.attrs) what += " " + k + "=" + v;
    RunCase(what, [&] { ExpectClose(RunResize(c.attrs, x), RefBilinear(x, c.oh, c.ow, align), what); });
  }
  const Tensor x = RandomTensor({2, 3, 6, 5}, 941), like = RandomTensor({1, 7, 11, 3}, 942);
  for (bool align : {true, false}) {
    AttrMap attrs = {{"mode", "like"}, {"height", "2"}};
    if (!align) attrs["align_corners"] = "0";
    ExpectClose(RunResize(attrs, x, &like), RefBilinear(x, 11, 3, align), "like, align_corners " + std::to_string(align));
  }
}

TEST_CASE("BilinearResize2D: bad modes, scales and sizes are refused naming the node", "[ops][bilinear_resize]") {
  const Tensor x = RandomTensor({1, 2, 5, 6}, 950);
  auto failure = [&](const AttrMap& attrs, const Tensor& data) { return FailureOf([&] { RunResize(attrs, data); }); };
  ExpectMessage(failure({{"mode", "scale"}}, x), "op0", {"mode 'scale'", "odd_scale"});
  ExpectMessage(failure({{"mode", "odd_scale"}, {"scale_height", "2"}}, x), "op0", {"scale_width", "odd_scale"});
  ExpectMessage(failure({{"scale_height", "2"}}, x), "op0", {"scale_width", "required"});
  ExpectMessage(failure({{"scale_height", "-2"}, {"scale_width", "2"}}, x), "op0", {"scale_height", "positive"});
  ExpectMessage(failure({{"scale_height", "0.1"}, {"scale_width", "1"}}, x), "op0", {"0 x 6", "1 to 32767"});
  ExpectMessage(failure({{"height", "0"}, {"width", "3"}}, x), "op0", {"height", "at least 1"});
  ExpectMessage(failure({{"height", "40000"}, {"width", "3"}}, x), "op0", {"40000", "32767"});
  ExpectMessage(failure({{"mode", "to_even_down"}}, RandomTensor({1, 1, 1, 4}, 951)), "op0", {"0 x 4"});
  ExpectMessage(failure({{"align_corners", "maybe"}, {"height", "2"}}, x), "op0", {"align_corners", "boolean"});
  ExpectMessage(failure({{"height", "2"}}, RandomTensor({5, 6}, 952)), "op0", {"4-D", "(5, 6)"});
  const Tensor flat = RandomTensor({1, 6}, 953);
  ExpectMessage(FailureOf([&] { RunResize({{"mode", "like"}}, x, &flat); }), "op0", {"like", "4-D", "(1, 6)"});
}

TEST_CASE("AdaptiveAvgPooling2D and BilinearResize2D run in float32 inside bfloat16 and int8 plans",
          "[ops][bilinear_resize][adaptive_pool][precision]") {
  // A PSPNet branch: convolution, adaptive pooling, resize back. The new operators have float32
  // kernels only; in a bfloat16 plan, or after an int8 convolution (int8 output), they read the
  // convolution's output converted to float32.
  const Tensor x = RandomTensor({2, 4, 10, 10}, 960);
  auto branch = [](const AttrMap& conv_hints) {
    Net net(961);
    const int conv = net.Conv("conv0", net.g.Variable("data"), 4, 6, MakeConv(3, 3, 1, 1, 1, 1, 1, 1, 1), true, -1,
                              conv_hints);
    const int pool = net.g.Op("_contrib_AdaptiveAvgPooling2D", "pool0", {{"output_size", "3"}}, {conv});
    net.g.Output(net.g.Op("_contrib_BilinearResize2D", "up0", {{"height", "10"}, {"width", "10"}}, {pool}));
    return net;
  };
  const Net plain = branch({});
  const Tensor want = CompiledGraph(plain.g.ToJson(), plain.params).Run({x}).at(0);
  const AttrMap int8_hints = {{qv::int8_attr::kInType, "int8"},      {qv::int8_attr::kInRange, "3"},
                              {qv::int8_attr::kInLevels, "127"},     {qv::int8_attr::kOutType, "int8"},
                              {qv::int8_attr::kOutRange, "8"},       {qv::int8_attr::kWeightLevels, "127"},
                              {qv::int8_attr::kChannelwise, "true"}, {qv::int8_attr::kFusedOps, "0"}};
  struct Run {
    const char* precision;
    AttrMap hints;
    double tolerance;  // of max(1, max |want|): a few bfloat16 or int8 steps
  };
  for (const Run& run : {Run{"bfloat16", {}, 3e-2}, Run{"int8", int8_hints, 5e-2}}) {
    INFO("precision " << run.precision);
    const Net net = branch(run.hints);
    Tensor got;
    try {
      got = CompiledGraph(net.g.ToJson(), net.params, {{"precision", run.precision}}).Run({x}).at(0);
    } catch (const std::exception& e) {
      // A CPU without the instructions refuses the precision itself, before any operator is reached.
      const std::string message = e.what();
      INFO(message);
      CHECK(message.find("instructions") != std::string::npos);
      WARN("not run at " << run.precision << ": " << message);
      continue;
    }
    ExpectClose(got, want, std::string(run.precision) + " plan", run.tolerance);
  }
}
