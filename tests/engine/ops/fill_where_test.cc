// zeros_like, ones_like, _arange and where against plain references.
#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

TEST_CASE("zeros_like and ones_like keep the shape and fill it", "[ops][fill]") {
  const Tensor x = RandomTensor({2, 3, 5}, 700);
  for (const auto& [op, value] : {std::pair<std::string, float>{"zeros_like", 0.f}, {"ones_like", 1.f}}) {
    Tensor want(x.shape);
    for (float& v : want.data) v = value;
    ExpectClose(RunUnary(op, {}, x), want, op);
  }
}

namespace {

Tensor RunArange(const AttrMap& attrs) {
  GraphBuilder g;
  g.Output(g.Op("_arange", "op0", attrs, {}));
  return Run(g, {}).at(0);
}

}  // namespace

TEST_CASE("_arange: start/stop/step, stop None, repeat", "[ops][fill]") {
  ExpectClose(RunArange({{"start", "20"}, {"stop", "None"}, {"dtype", "float32"}}),
              Tensor({20}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}), "arange(20)");
  ExpectClose(RunArange({{"start", "1"}, {"stop", "2"}, {"step", "0.25"}}), Tensor({4}, {1, 1.25, 1.5, 1.75}),
              "arange(1, 2, 0.25)");
  ExpectClose(RunArange({{"start", "3"}, {"stop", "0"}, {"step", "-1"}, {"repeat", "2"}}),
              Tensor({6}, {3, 3, 2, 2, 1, 1}), "arange(3, 0, -1) repeat 2");
  ExpectMessage(FailureOf([] { RunArange({{"start", "2"}, {"stop", "1"}}); }), "op0", {"empty"});
  ExpectMessage(FailureOf([] { RunArange({{"start", "5"}, {"dtype", "int32"}}); }), "op0", {"int32"});
  ExpectMessage(FailureOf([] { RunArange({{"start", "5"}, {"infer_range", "True"}}); }), "op0", {"infer_range"});
}

namespace {

Tensor RunWhere(const Tensor& cond, const Tensor& x, const Tensor& y) {
  GraphBuilder g;
  const int c = g.Variable("cond"), a = g.Variable("x"), b = g.Variable("y");
  g.Output(g.Op("where", "op0", {}, {c, a, b}));
  return Run(g, {cond, x, y}).at(0);
}

}  // namespace

TEST_CASE("where picks x where the condition is non-zero, elementwise or by rows", "[ops][where]") {
  const Tensor x = RandomTensor({3, 4, 2}, 710), y = RandomTensor({3, 4, 2}, 711);
  Tensor cond = RandomTensor({3, 4, 2}, 712);
  for (float& v : cond.data) v = v > 0 ? (v > 1.5f ? 2.f : 0.f) : -1.f;  // any non-zero counts
  Tensor want(x.shape);
  for (int64_t i = 0; i < x.size(); ++i) want.data[i] = cond.data[i] != 0 ? x.data[i] : y.data[i];
  ExpectClose(RunWhere(cond, x, y), want, "where elementwise");

  const Tensor rows({3}, {1, 0, 1});
  for (int64_t i = 0; i < x.size(); ++i) want.data[i] = rows.data[i / 8] != 0 ? x.data[i] : y.data[i];
  ExpectClose(RunWhere(rows, x, y), want, "where by rows");

  ExpectMessage(FailureOf([&] { RunWhere(Tensor({4}), x, y); }), "op0", {"condition"});
  ExpectMessage(FailureOf([&] { RunWhere(cond, x, RandomTensor({3, 4, 1}, 713)); }), "op0", {"differ"});
}
