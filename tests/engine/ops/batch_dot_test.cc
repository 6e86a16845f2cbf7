// batch_dot against a double-precision triple loop, every combination of transposes.
#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

// (batch, m, k) x (batch, k, n), the operands stored transposed on request.
Tensor RefBatchDot(const Tensor& a, const Tensor& b, bool ta, bool tb) {
  const size_t r = a.shape.size();
  int64_t batch = 1;
  for (size_t d = 0; d + 2 < r; ++d) batch *= a.shape[d];
  const int64_t m = ta ? a.shape[r - 1] : a.shape[r - 2], k = ta ? a.shape[r - 2] : a.shape[r - 1];
  const int64_t n = tb ? b.shape[r - 2] : b.shape[r - 1];
  Shape out(a.shape.begin(), a.shape.end() - 2);
  out.push_back(m);
  out.push_back(n);
  Tensor y(out);
  for (int64_t p = 0; p < batch; ++p)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t q = 0; q < k; ++q)
          s += static_cast<double>(a.data[p * m * k + (ta ? q * m + i : i * k + q)]) *
               b.data[p * k * n + (tb ? j * k + q : q * n + j)];
        y.data[(p * m + i) * n + j] = static_cast<float>(s);
      }
  return y;
}

Tensor RunBatchDot(const Tensor& a, const Tensor& b, const AttrMap& attrs) {
  GraphBuilder g;
  g.Output(g.Op("batch_dot", "bd", attrs, {g.Variable("a"), g.Variable("b")}));
  return Run(g, {a, b}).at(0);
}

const char* Bool(bool b) { return b ? "True" : "False"; }

}  // namespace

TEST_CASE("batch_dot multiplies matrices over the batch axes, with either operand transposed", "[ops][batch_dot]") {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      const Tensor a = RandomTensor(ta ? Shape{4, 5, 3} : Shape{4, 3, 5}, 710);
      const Tensor b = RandomTensor(tb ? Shape{4, 6, 5} : Shape{4, 5, 6}, 711);
      ExpectClose(RunBatchDot(a, b, {{"transpose_a", Bool(ta)}, {"transpose_b", Bool(tb)}}), RefBatchDot(a, b, ta, tb),
                  std::string("transpose_a ") + Bool(ta) + ", transpose_b " + Bool(tb));
    }
  // Rank 4: two batch axes.
  const Tensor a = RandomTensor({2, 3, 4, 5}, 712), b = RandomTensor({2, 3, 5, 2}, 713);
  ExpectClose(RunBatchDot(a, b, {}), RefBatchDot(a, b, false, false), "rank 4");
}

TEST_CASE("batch_dot refuses mismatched operands", "[ops][batch_dot]") {
  ExpectMessage(FailureOf([] { RunBatchDot(RandomTensor({2, 3, 4}, 1), RandomTensor({2, 5, 6}, 2), {}); }), "bd",
                {"inner sizes 4 and 5"});
  ExpectMessage(FailureOf([] { RunBatchDot(RandomTensor({2, 3, 4}, 1), RandomTensor({3, 4, 6}, 2), {}); }), "bd",
                {"batch"});
  ExpectMessage(FailureOf([] { RunBatchDot(RandomTensor({3, 4}, 1), RandomTensor({4, 6}, 2), {}); }), "bd",
                {"rank of at least 3"});
}
