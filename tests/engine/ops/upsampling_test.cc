// UpSampling against plain references written here. Nearest: output (n, c, h, w) reads input
// (n, c, h / s, w / s), one input or several (concat along channels, or sum) at their own factors.
// Bilinear: MXNet's documented example, and a direct scatter of each pixel through the (C, 1, k, k)
// weight with k = 2s - s % 2, stride s, crop ceil((s - 1) / 2). Then the error messages.
#include <memory>

#include "engine/ops/op_test_util.h"
#include "ops/int8_hints.h"

using namespace qv_op_test;

namespace {

// Input x repeated s times along H and W, written into channels [begin, ...) of y (or added to them).
void RefNearestInto(const Tensor& x, int64_t s, int64_t begin, bool add, Tensor* y) {
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
  for (int64_t b = 0; b < n; ++b)
    for (int64_t k = 0; k < c; ++k)
      for (int64_t i = 0; i < h * s; ++i)
        for (int64_t j = 0; j < w * s; ++j) {
          float& out = y->data[((b * y->shape[1] + begin + k) * y->shape[2] + i) * y->shape[3] + j];
          const float v = x.data[((b * c + k) * h + i / s) * w + j / s];
          out = add ? out + v : v;
        }
}

Tensor RefBilinear(const Tensor& x, const Tensor& weight, int64_t s) {
  const int64_t k = 2 * s - s % 2, crop = (s - 1 + 1) / 2;  // ceil((s - 1) / 2)
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
  Tensor y(Shape{n, c, h * s, w * s});
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t i = 0; i < h; ++i)
        for (int64_t j = 0; j < w; ++j)
          for (int64_t ki = 0; ki < k; ++ki)
            for (int64_t kj = 0; kj < k; ++kj) {
              const int64_t oi = i * s + ki - crop, oj = j * s + kj - crop;
              if (oi < 0 || oi >= h * s || oj < 0 || oj >= w * s) continue;
              y.data[((b * c + ch) * h * s + oi) * w * s + oj] +=
                  x.data[((b * c + ch) * h + i) * w + j] * weight.data[(ch * k + ki) * k + kj];
            }
  return y;
}

std::vector<Tensor> RunNearest(const std::vector<Tensor>& xs, int64_t scale, const std::string& mode) {
  GraphBuilder g;
  std::vector<qv_test::Entry> inputs;
  for (size_t i = 0; i < xs.size(); ++i) inputs.push_back(g.Variable("x" + std::to_string(i)));
  g.Output(g.Op("UpSampling", "up0",
                {{"scale", std::to_string(scale)}, {"sample_type", "nearest"}, {"num_args", std::to_string(xs.size())},
                 {"multi_input_mode", mode}},
                inputs));
  return Run(g, xs);
}

}  // namespace

TEST_CASE("Nearest UpSampling matches the reference: one input, concat and sum of several", "[ops][upsampling]") {
  std::mt19937 rng(41);
  for (int64_t s : {1, 2, 3}) {
    const Tensor x = qv_test::Random({2, 3, 4, 5}, &rng);
    Tensor want(Shape{2, 3, 4 * s, 5 * s});
    RefNearestInto(x, s, 0, false, &want);
    ExpectClose(RunNearest({x}, s, "concat").at(0), want, "nearest scale " + std::to_string(s), 0);
  }
  // Output 8x12 from the first input at scale 2; the others reach it at factors 4 and 1.
  const Tensor a = qv_test::Random({2, 3, 4, 6}, &rng), b = qv_test::Random({2, 2, 2, 3}, &rng);
  const Tensor c = qv_test::Random({2, 3, 8, 12}, &rng);
  Tensor concat(Shape{2, 8, 8, 12});
  RefNearestInto(a, 2, 0, false, &concat);
  RefNearestInto(b, 4, 3, false, &concat);
  RefNearestInto(c, 1, 5, false, &concat);
  ExpectClose(RunNearest({a, b, c}, 2, "concat").at(0), concat, "nearest concat of 3 inputs", 0);
  const Tensor b3 = qv_test::Random({2, 3, 2, 3}, &rng);
  Tensor sum(Shape{2, 3, 8, 12});
  RefNearestInto(a, 2, 0, false, &sum);
  RefNearestInto(b3, 4, 0, true, &sum);
  RefNearestInto(c, 1, 0, true, &sum);
  ExpectClose(RunNearest({a, b3, c}, 2, "sum").at(0), sum, "nearest sum of 3 inputs");
}

TEST_CASE("Bilinear UpSampling runs MXNet's deconvolution: its example and a scatter reference",
          "[ops][upsampling]") {
  auto run = [](const Tensor& x, const Tensor& weight, int64_t s) {
    GraphBuilder g;
    g.Output(g.Op("UpSampling", "up0",
                  {{"scale", std::to_string(s)}, {"sample_type", "bilinear"}, {"num_args", "2"},
                   {"num_filter", std::to_string(x.shape[1])}},
                  {g.Variable("data"), g.Variable("up0_weight")}));
    return Run(g, {x}, {{"up0_weight", weight}}).at(0);
  };
  // MXNet's documentation: ones(1, 1, 3, 3), weight ones(1, 1, 4, 4), scale 2.
  const Tensor example = run(Tensor(Shape{1, 1, 3, 3}, std::vector<float>(9, 1.f)),
                             Tensor(Shape{1, 1, 4, 4}, std::vector<float>(16, 1.f)), 2);
  const std::vector<float> edge = {1, 2, 2, 2, 2, 1}, inner = {2, 4, 4, 4, 4, 2};
  std::vector<float> want;
  for (int i = 0; i < 6; ++i) want.insert(want.end(), (i == 0 || i == 5 ? edge : inner).begin(), (i == 0 || i == 5 ? edge : inner).end());
  ExpectClose(example, Tensor(Shape{1, 1, 6, 6}, want), "MXNet's bilinear example", 0);
  std::mt19937 rng(42);
  for (int64_t s : {2, 3, 4}) {
    const int64_t k = 2 * s - s % 2;
    const Tensor x = qv_test::Random({2, 5, 3, 4}, &rng), w = qv_test::Random({5, 1, k, k}, &rng);
    ExpectClose(run(x, w, s), RefBilinear(x, w, s), "bilinear scale " + std::to_string(s));
  }
}

TEST_CASE("UpSampling refuses bad attributes and shapes, naming the node", "[ops][upsampling]") {
  auto failure = [](const AttrMap& attrs, const std::vector<Shape>& shapes, const Shape& weight = {}) {
    return FailureOf([&] {
      GraphBuilder g;
      std::vector<qv_test::Entry> inputs;
      std::vector<Tensor> xs;
      for (size_t i = 0; i < shapes.size(); ++i) {
        inputs.push_back(g.Variable("x" + std::to_string(i)));
        xs.push_back(Tensor(shapes[i]));
      }
      std::map<std::string, Tensor> params;
      if (!weight.empty()) {
        inputs.push_back(g.Variable("up0_weight"));
        params["up0_weight"] = Tensor(weight);
      }
      g.Output(g.Op("UpSampling", "up0", attrs, inputs));
      Run(g, xs, params);
    });
  };
  const AttrMap nearest2 = {{"scale", "2"}, {"sample_type", "nearest"}, {"num_args", "2"}};
  ExpectMessage(failure(nearest2, {{1, 2, 4, 6}, {1, 2, 2, 6}}), "up0", {"input 1 (1, 2, 2, 6)", "one whole factor"});
  ExpectMessage(failure(nearest2, {{1, 2, 4, 6}, {1, 2, 3, 4}}), "up0", {"input 1 (1, 2, 3, 4)", "one whole factor"});
  ExpectMessage(failure(nearest2, {{1, 2, 4, 6}, {2, 2, 4, 6}}), "up0", {"another batch size"});
  AttrMap sum = nearest2;
  sum["multi_input_mode"] = "sum";
  ExpectMessage(failure(sum, {{1, 2, 4, 6}, {1, 3, 4, 6}}), "up0", {"equal channel counts"});
  ExpectMessage(failure({{"scale", "0"}, {"sample_type", "nearest"}}, {{1, 2, 4, 6}}), "up0", {"scale must be"});
  ExpectMessage(failure({{"scale", "2"}, {"sample_type", "cubic"}}, {{1, 2, 4, 6}}), "up0", {"sample_type 'cubic'"});
  ExpectMessage(failure({{"scale", "2"}, {"sample_type", "nearest"}}, {{1, 2, 4}}), "up0", {"4-D"});
  const AttrMap bilinear = {{"scale", "2"}, {"sample_type", "bilinear"}, {"num_args", "2"}, {"num_filter", "2"}};
  ExpectMessage(failure(bilinear, {{1, 3, 4, 4}}, {3, 1, 4, 4}), "up0", {"num_filter 2", "channel count 3"});
  ExpectMessage(failure(bilinear, {{1, 2, 4, 4}}, {2, 1, 3, 3}), "up0", {"weight has shape (2, 1, 3, 3)"});
}

// In bfloat16 and int8 plans (a convolution before them, int8-hinted in the int8 plan) Pad and nearest
// UpSampling are float32 copies of what they read: exact against the plan's own convolution output.
// Where this CPU lacks the instructions, the plan must be refused for that reason only.
TEST_CASE("Pad and UpSampling in bfloat16 and int8 plans copy float32 values", "[ops][upsampling][pad]") {
  for (const std::string precision : {"int8", "bfloat16"}) {
    Net net(93);
    AttrMap hints;
    if (precision == "int8") hints = {{qv::int8_attr::kInType, "int8"}, {qv::int8_attr::kOutType, "float32"}};
    const int conv = net.Conv("conv0", net.g.Variable("data"), 3, 4, MakeConv(1, 1, 1, 1, 0, 0, 1, 1, 1), true, -1,
                              hints);
    const int pad = net.g.Op("Pad", "pad0", {{"mode", "reflect"}, {"pad_width", "(0, 0, 0, 0, 1, 1, 2, 2)"}}, {conv});
    net.g.Output(net.g.Op("UpSampling", "up0", {{"scale", "2"}, {"sample_type", "nearest"}, {"num_args", "1"}}, {pad}));
    net.g.Output(conv);
    const Tensor x = qv_test::Random({2, 3, 4, 5}, &net.rng);
    std::unique_ptr<CompiledGraph> op;
    try {
      op = std::make_unique<CompiledGraph>(net.g.ToJson(), net.params, AttrMap{{"precision", precision}});
    } catch (const std::exception& e) {
      const std::string message = e.what();
      INFO(message);
      REQUIRE(message.find("which this CPU lacks") != std::string::npos);
      WARN("not run at precision " << precision << ": " << message);
      continue;
    }
    const std::vector<Tensor> out = op->Run({x});
    const Tensor& c = out[1];
    // Reflect by (1, 1) rows and (2, 2) columns, then repeat each value 2 x 2.
    Tensor want(Shape{2, 4, 12, 18});
    for (int64_t i = 0; i < want.size(); ++i) {
      const std::vector<int64_t> at = Unravel(i, want.shape);
      const int64_t h = at[2] / 2 - 1, w = at[3] / 2 - 2;
      const int64_t sh = h < 0 ? -h : h > 3 ? 6 - h : h, sw = w < 0 ? -w : w > 4 ? 8 - w : w;
      want.data[i] = c.data[((at[0] * 4 + at[1]) * 4 + sh) * 5 + sw];
    }
    ExpectClose(out[0], want, "Pad and UpSampling in a " + precision + " plan", 0);
  }
}
