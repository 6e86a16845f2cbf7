// 3-D Pooling (NCDHW) against a reference written from MXNet's rules (src/operator/nn/pool.h, its 3-D
// forms): a window is cut at the padded input's end; avg divides by that cut window's volume
// (count_include_pad) or by its part inside the input; a window wholly outside the input gives
// -FLT_MAX (max) or 0; global pooling covers the whole volume.
#include <algorithm>
#include <cfloat>

#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

struct Pool3d {
  std::string type;
  int64_t k[3], s[3], p[3];
  bool full, include_pad;
};

int64_t Pooled(int64_t in, int64_t k, int64_t p, int64_t s, bool full) {
  const int64_t room = in + 2 * p - k;
  return (full ? (room + s - 1) / s : room / s) + 1;
}

Tensor RefPool3d(const Tensor& x, const Pool3d& q) {
  const int64_t planes = x.shape[0] * x.shape[1];
  int64_t in[3], out[3];
  for (int a = 0; a < 3; ++a) {
    in[a] = x.shape[2 + a];
    out[a] = Pooled(in[a], q.k[a], q.p[a], q.s[a], q.full);
  }
  Tensor y({x.shape[0], x.shape[1], out[0], out[1], out[2]});
  int64_t at = 0;
  for (int64_t plane = 0; plane < planes; ++plane)
    for (int64_t i = 0; i < out[0]; ++i)
      for (int64_t j = 0; j < out[1]; ++j)
        for (int64_t l = 0; l < out[2]; ++l) {
          const int64_t o[3] = {i, j, l};
          int64_t lo[3], hi[3], count = 1;
          for (int a = 0; a < 3; ++a) {
            lo[a] = o[a] * q.s[a] - q.p[a];
            hi[a] = std::min(lo[a] + q.k[a], in[a] + q.p[a]);
            count *= hi[a] - lo[a];
          }
          double acc = q.type == "max" ? -FLT_MAX : 0.0;
          int64_t inside = 0;
          for (int64_t d = std::max<int64_t>(lo[0], 0); d < std::min(hi[0], in[0]); ++d)
            for (int64_t h = std::max<int64_t>(lo[1], 0); h < std::min(hi[1], in[1]); ++h)
              for (int64_t w = std::max<int64_t>(lo[2], 0); w < std::min(hi[2], in[2]); ++w) {
                const float v = x.data[((plane * in[0] + d) * in[1] + h) * in[2] + w];
                acc = q.type == "max" ? std::max<double>(acc, v) : acc + v;
                ++inside;
              }
          if (q.type == "avg") acc = inside == 0 ? 0.0 : acc / (q.include_pad ? count : inside);
          y.data[at++] = static_cast<float>(acc);
        }
  return y;
}

AttrMap Attrs(const Pool3d& q) {
  return {{"pool_type", q.type},
          {"kernel", Tuple({q.k[0], q.k[1], q.k[2]})},
          {"stride", Tuple({q.s[0], q.s[1], q.s[2]})},
          {"pad", Tuple({q.p[0], q.p[1], q.p[2]})},
          {"pooling_convention", q.full ? "full" : "valid"},
          {"count_include_pad", q.include_pad ? "True" : "False"}};
}

}  // namespace

TEST_CASE("3-D Pooling matches MXNet's rules", "[ops][pooling][pool3d]") {
  const Tensor x = RandomTensor({2, 3, 5, 7, 6}, 740);
  const std::vector<Pool3d> cases = {
      {"max", {1, 3, 3}, {1, 2, 2}, {0, 1, 1}, false, true},  // I3D's spatial max pool
      {"max", {3, 1, 1}, {2, 1, 1}, {1, 0, 0}, false, true},  // its temporal one
      {"max", {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, true, true},
      {"avg", {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, false, true},
      {"avg", {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, false, false},
      {"avg", {2, 3, 2}, {2, 2, 3}, {1, 1, 0}, true, true},   // windows past the padding: loop kernel
      {"sum", {2, 2, 2}, {1, 2, 2}, {0, 1, 1}, false, true},
      {"max", {2, 2, 2}, {3, 3, 3}, {1, 1, 1}, true, true},   // windows wholly past the input
  };
  for (const Pool3d& q : cases) {
    std::string what = "Pooling";
    for (const auto& kv : Attrs(q)) what += " " + kv.first + "=" + kv.second;
    ExpectClose(RunUnary("Pooling", Attrs(q), x), RefPool3d(x, q), what);
  }
  for (const std::string type : {"max", "avg", "sum"}) {
    const Tensor y = RunUnary("Pooling", {{"pool_type", type}, {"global_pool", "True"}, {"kernel", "(1, 1, 1)"}}, x);
    const Pool3d whole = {type, {5, 7, 6}, {1, 1, 1}, {0, 0, 0}, false, true};
    ExpectClose(y, RefPool3d(x, whole), "global " + type);
  }
}

TEST_CASE("3-D Pooling refuses tuples and data of the wrong rank", "[ops][pooling][pool3d]") {
  const Tensor x = RandomTensor({1, 2, 3, 4, 4}, 741);
  ExpectMessage(FailureOf([&] { RunUnary("Pooling", {{"kernel", "(2, 2, 2)"}, {"stride", "(1, 1)"}}, x); }), "op0",
                {"3 values"});
  ExpectMessage(FailureOf([&] { RunUnary("Pooling", {{"kernel", "(2, 2)"}}, x); }), "op0",
                {"2-D kernel", "4 dimensions"});
  ExpectMessage(FailureOf([&] { RunUnary("Pooling", {{"kernel", "(2, 2, 2)"}}, RandomTensor({1, 2, 4, 4}, 742)); }),
                "op0", {"3-D kernel", "5 dimensions"});
}
