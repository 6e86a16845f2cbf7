// Pooling cases beyond tests/capi/ops_test.cc: sum pooling, and "full"-convention windows lying wholly
// past the input, where MXNet writes -FLT_MAX (max) or 0 (avg, sum).
#include <algorithm>
#include <cfloat>

#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

struct Pool {
  std::string type;
  int64_t k[2], s[2], p[2];
  bool full, include_pad, global;
};

// Written from MXNet's description: a window is cut at the padded input's end; avg divides by that
// cut window's area (count_include_pad) or by the part inside the real input.
Tensor RefPool(const Tensor& x, Pool q) {
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
  if (q.global) q = {q.type, {h, w}, {1, 1}, {0, 0}, false, true, true};
  const int64_t oh = qv_ref::PooledSize(h, q.k[0], q.p[0], q.s[0], q.full);
  const int64_t ow = qv_ref::PooledSize(w, q.k[1], q.p[1], q.s[1], q.full);
  Tensor y({n, c, oh, ow});
  for (int64_t plane = 0; plane < n * c; ++plane)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        const int64_t h0 = i * q.s[0] - q.p[0], w0 = j * q.s[1] - q.p[1];
        const int64_t h1 = std::min(h0 + q.k[0], h + q.p[0]), w1 = std::min(w0 + q.k[1], w + q.p[1]);
        double acc = q.type == "max" ? -FLT_MAX : 0.0;
        int64_t inside = 0;
        for (int64_t a = std::max<int64_t>(h0, 0); a < std::min(h1, h); ++a)
          for (int64_t b = std::max<int64_t>(w0, 0); b < std::min(w1, w); ++b) {
            const float v = x.data[(plane * h + a) * w + b];
            acc = q.type == "max" ? std::max<double>(acc, v) : acc + v;
            ++inside;
          }
        const int64_t count = q.include_pad ? (h1 - h0) * (w1 - w0) : inside;
        if (q.type == "avg") acc = inside == 0 ? 0.0 : acc / count;
        y.data[(plane * oh + i) * ow + j] = static_cast<float>(acc);
      }
  return y;
}

AttrMap Attrs(const Pool& q) {
  if (q.global) return {{"pool_type", q.type}, {"global_pool", "True"}, {"kernel", "(1, 1)"}};
  return {{"pool_type", q.type},
          {"kernel", qv_test::Tuple({q.k[0], q.k[1]})},
          {"stride", qv_test::Tuple({q.s[0], q.s[1]})},
          {"pad", qv_test::Tuple({q.p[0], q.p[1]})},
          {"pooling_convention", q.full ? "full" : "valid"},
          {"count_include_pad", q.include_pad ? "True" : "False"}};
}

}  // namespace

TEST_CASE("sum pooling, and windows wholly past the input, match MXNet's rules", "[ops][pooling]") {
  const std::vector<Pool> pools = {
      {"sum", {3, 3}, {2, 2}, {1, 1}, false, true, false},
      {"sum", {3, 3}, {2, 2}, {1, 1}, true, true, false},
      {"sum", {2, 3}, {2, 1}, {0, 1}, true, false, false},
      {"sum", {1, 1}, {1, 1}, {0, 0}, false, true, true},  // global
      // 9 wide, kernel 2, stride 3, full: the fourth window starts at column 9, past the input.
      {"max", {3, 2}, {2, 3}, {1, 0}, true, true, false},
      {"avg", {3, 2}, {2, 3}, {1, 0}, true, false, false},
      {"avg", {3, 2}, {2, 3}, {1, 0}, true, true, false},
      {"sum", {3, 2}, {2, 3}, {1, 0}, true, true, false},
  };
  unsigned seed = 700;
  for (const Pool& q : pools) {
    const Tensor x = RandomTensor({2, 5, 7, 9}, seed++);
    std::string what = "Pooling";
    for (const auto& kv : Attrs(q)) what += " " + kv.first + "=" + kv.second;
    ExpectClose(RunUnary("Pooling", Attrs(q), x), RefPool(x, q), what);
  }
}

TEST_CASE("Pooling refuses unknown types and bad windows, naming the node", "[ops][pooling]") {
  const Tensor x = RandomTensor({1, 2, 5, 5}, 710);
  ExpectMessage(FailureOf([&] { RunUnary("Pooling", {{"pool_type", "lp"}, {"kernel", "(2, 2)"}}, x); }), "op0", {"lp"});
  ExpectMessage(FailureOf([&] { RunUnary("Pooling", {{"kernel", "(2, 2)"}, {"pad", "(2, 2)"}}, x); }), "op0", {"pad"});
  ExpectMessage(FailureOf([&] { RunUnary("Pooling", {{"kernel", "(7, 7)"}}, x); }), "op0", {"kernel larger"});
}
