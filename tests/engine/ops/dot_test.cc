// dot against a double-precision loop over multi-indices (the contracted axis of each operand, the
// others kept in order), MXNet's documented example, vectors, and the shapes it refuses.
#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

// The lhs contracts its last axis (its first with ta), the rhs its first (its last with tb); the
// output's axes are the lhs's others then the rhs's others (a vector has none), or (1,).
Tensor RefDot(const Tensor& a, const Tensor& b, bool ta, bool tb) {
  const Shape a_kept(ta ? a.shape.begin() + 1 : a.shape.begin(), ta ? a.shape.end() : a.shape.end() - 1);
  const Shape b_kept(tb ? b.shape.begin() : b.shape.begin() + 1, tb ? b.shape.end() - 1 : b.shape.end());
  const int64_t k = ta ? a.shape.front() : a.shape.back();
  Shape out = a_kept;
  out.insert(out.end(), b_kept.begin(), b_kept.end());
  if (out.empty()) out.push_back(1);
  Tensor y(out);
  const std::vector<int64_t> sa = Strides(a.shape), sb = Strides(b.shape);
  for (int64_t o = 0; o < y.size(); ++o) {
    const std::vector<int64_t> idx = Unravel(o, out);  // the lhs's kept axes, then the rhs's
    double s = 0;
    for (int64_t q = 0; q < k; ++q) {
      int64_t pa = ta ? q * sa.front() : q * sa.back();
      for (size_t d = 0; d < a_kept.size(); ++d) pa += idx[d] * sa[ta ? d + 1 : d];
      int64_t pb = tb ? q * sb.back() : q * sb.front();
      for (size_t d = 0; d < b_kept.size(); ++d) pb += idx[a_kept.size() + d] * sb[tb ? d : d + 1];
      s += static_cast<double>(a.data[pa]) * b.data[pb];
    }
    y.data[o] = static_cast<float>(s);
  }
  return y;
}

Tensor RunDot(const Tensor& a, const Tensor& b, bool ta, bool tb) {
  GraphBuilder g;
  g.Output(g.Op("dot", "d", {{"transpose_a", ta ? "True" : "False"}, {"transpose_b", tb ? "True" : "False"}},
                {g.Variable("a"), g.Variable("b")}));
  return Run(g, {a, b}).at(0);
}

}  // namespace

TEST_CASE("dot contracts the lhs's last axis with the rhs's first, either operand transposed", "[ops][dot]") {
  struct Case {
    Shape a, b;
    bool ta, tb;
  };
  const Case cases[] = {
      {{3, 5}, {5, 4}, false, false},       {{5, 3}, {5, 4}, true, false},     {{3, 5}, {4, 5}, false, true},
      {{5, 3}, {4, 5}, true, true},         {{2, 3, 5}, {5, 4, 2}, false, false},  // (2, 3, 4, 2)
      {{5, 2, 3}, {5, 4}, true, false},     {{2, 3, 5}, {4, 2, 5}, false, true},   // (2, 3, 4, 2)
      {{5, 2, 3}, {2, 4, 5}, true, true},   {{7}, {7}, false, false},              // (1,)
      {{7}, {7, 3}, false, false},          {{7}, {3, 7}, false, true},            // (3,)
      {{4, 7}, {7}, false, false},          {{7, 4}, {7}, true, false},            // (4,)
      {{1, 64, 48}, {48, 96}, false, false},  // large enough for oneDNN's matmul
  };
  unsigned seed = 720;
  for (const Case& c : cases) {
    const Tensor a = RandomTensor(c.a, seed++), b = RandomTensor(c.b, seed++);
    const std::string what = ShapeStr(c.a) + (c.ta ? "^T" : "") + " . " + ShapeStr(c.b) + (c.tb ? "^T" : "");
    RunCase(what, [&] {
      const Tensor want = RefDot(a, b, c.ta, c.tb);
      const Tensor got = RunDot(a, b, c.ta, c.tb);
      CHECK(got.shape == want.shape);
      ExpectClose(got, want, what);
    });
  }
}

TEST_CASE("dot gives MXNet's documented example", "[ops][dot]") {
  // x = reshape([0..7], (2, 2, 2)), y = reshape([7..0], (2, 2, 2)): dot(x, y)[i, j, a, b] = sum(x[i, j, :] * y[:, a, b]).
  const Tensor x({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}), y({2, 2, 2}, {7, 6, 5, 4, 3, 2, 1, 0});
  const Tensor got = RunDot(x, y, false, false);
  REQUIRE(got.shape == Shape{2, 2, 2, 2});
  CHECK(got.data[0 * 8 + 0 * 4 + 1 * 2 + 1] == 0.f);   // [0, 0, 1, 1] = 0*4 + 1*0
  CHECK(got.data[1 * 8 + 1 * 4 + 0 * 2 + 0] == 63.f);  // [1, 1, 0, 0] = 6*7 + 7*3
}

TEST_CASE("dot refuses mismatched operands and transposed vectors", "[ops][dot]") {
  ExpectMessage(FailureOf([] { RunDot(RandomTensor({3, 4}, 1), RandomTensor({5, 6}, 2), false, false); }), "d",
                {"inner sizes 4 and 5"});
  ExpectMessage(FailureOf([] { RunDot(RandomTensor({3, 4}, 1), RandomTensor({5, 6}, 2), true, true); }), "d",
                {"inner sizes 3 and 6", "transpose_a=True"});
  ExpectMessage(FailureOf([] { RunDot(RandomTensor({4}, 1), RandomTensor({4}, 2), true, false); }), "d",
                {"cannot be transposed"});
}
