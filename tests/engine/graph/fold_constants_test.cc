// FoldConstantMoves: GluonNLP's attention projection, whose FullyConnected weight and bias are built in
// the graph from three parameters (Reshape per head, Concat, Reshape; Reshape, stack, Reshape), loads
// and computes the FullyConnected of the weights joined by hand. Before the pass the CPU kernel refused
// it ("weight must be a parameter").
#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

constexpr int64_t kHeads = 2, kUnits = 6, kHeadDim = kUnits / kHeads;

// What GluonNLP's graph computes: per head, the query, key and value rows of that head side by side.
Tensor InterleavedWeight(const std::vector<Tensor>& w) {
  Tensor out({3 * kUnits, kUnits});
  int64_t row = 0;
  for (int64_t h = 0; h < kHeads; ++h)
    for (const Tensor& part : w)
      for (int64_t r = 0; r < kHeadDim; ++r, ++row)
        for (int64_t c = 0; c < kUnits; ++c) out.data[row * kUnits + c] = part.data[(h * kHeadDim + r) * kUnits + c];
  return out;
}

Tensor InterleavedBias(const std::vector<Tensor>& b) {
  Tensor out({3 * kUnits});
  int64_t at = 0;
  for (int64_t h = 0; h < kHeads; ++h)
    for (const Tensor& part : b)
      for (int64_t r = 0; r < kHeadDim; ++r) out.data[at++] = part.data[h * kHeadDim + r];
  return out;
}

}  // namespace

TEST_CASE("FullyConnected weights reshaped and joined in the graph are folded into parameters", "[graph][fold]") {
  GraphBuilder g;
  const int data = g.Variable("data");
  const char* parts[] = {"query", "key", "value"};
  std::vector<qv_test::Entry> weights, biases;
  std::map<std::string, Tensor> params;
  std::vector<Tensor> w, b;
  for (int i = 0; i < 3; ++i) {
    const std::string p = parts[i];
    w.push_back(RandomTensor({kUnits, kUnits}, 740 + i));
    b.push_back(RandomTensor({kUnits}, 750 + i));
    params[p + "_weight"] = w.back();
    params[p + "_bias"] = b.back();
    weights.push_back(g.Op("Reshape", p + "_w_heads", {{"shape", "(2, -1, 0)"}, {"reverse", "True"}},
                           {g.Variable(p + "_weight")}));
    biases.push_back(g.Op("Reshape", p + "_b_heads", {{"shape", "(2, -1)"}, {"reverse", "True"}},
                          {g.Variable(p + "_bias")}));
  }
  const int joined_w = g.Op("Concat", "concat_w", {{"dim", "-2"}, {"num_args", "3"}}, weights);
  const int weight = g.Op("Reshape", "weight", {{"shape", "(-1, 0)"}, {"reverse", "True"}}, {joined_w});
  const int joined_b = g.Op("stack", "stack_b", {{"axis", "1"}, {"num_args", "3"}}, biases);
  const int bias = g.Op("Reshape", "bias", {{"shape", "-1"}}, {joined_b});
  g.Output(g.Op("FullyConnected", "fc", {{"num_hidden", "18"}, {"flatten", "False"}}, {data, weight, bias}));

  const Tensor x = RandomTensor({4, 3, kUnits}, 760);
  const Tensor want_b = InterleavedBias(b);
  const Tensor want = qv_ref::FullyConnected(x, InterleavedWeight(w), &want_b, false);
  ExpectClose(Run(g, {x}, params).at(0), want, "folded projection");
}

TEST_CASE("Folding stops at run-time data: a transpose of data is computed per call", "[graph][fold]") {
  // transpose(weight) folds; transpose(data) does not, and both give the right values.
  GraphBuilder g;
  const int data = g.Variable("data");
  const int wt = g.Op("transpose", "wt", {}, {g.Variable("w")});
  const int xt = g.Op("transpose", "xt", {}, {data});
  g.Output(g.Op("FullyConnected", "fc", {{"num_hidden", "5"}, {"no_bias", "True"}}, {xt, wt}));
  const Tensor w = RandomTensor({4, 5}, 761), x = RandomTensor({4, 3}, 762);
  Tensor w_t({5, 4}), x_t({3, 4});
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 5; ++j) w_t.data[j * 4 + i] = w.data[i * 5 + j];
    for (int64_t j = 0; j < 3; ++j) x_t.data[j * 4 + i] = x.data[i * 3 + j];
  }
  ExpectClose(Run(g, {x}, {{"w", w}}).at(0), qv_ref::FullyConnected(x_t, w_t, nullptr, true), "transposes");
}
