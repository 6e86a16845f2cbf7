// The interleaved self-attention products against MXNet's documented equivalents: the projections
// reshaped to (seq, batch, heads, 3, head_dim); queries [.., 0, :], keys [.., 1, :], values [.., 2, :];
// scores = (q / sqrt(head_dim)) . k per (batch, head); outputs = scores x v, heads side by side.
// Also _contrib_div_sqrt_dim.
#include <cmath>

#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

struct Dims {
  int64_t seq, batch, heads, dim;
};

// Element (s, b, h, part, d) of the projections.
float At(const Tensor& qkv, const Dims& n, int64_t s, int64_t b, int64_t h, int part, int64_t d) {
  return qkv.data[(((s * n.batch + b) * n.heads + h) * 3 + part) * n.dim + d];
}

Tensor RefQk(const Tensor& qkv, const Dims& n) {
  Tensor y({n.batch * n.heads, n.seq, n.seq});
  const double scale = 1.0 / std::sqrt(static_cast<double>(n.dim));
  for (int64_t b = 0; b < n.batch; ++b)
    for (int64_t h = 0; h < n.heads; ++h)
      for (int64_t s = 0; s < n.seq; ++s)
        for (int64_t t = 0; t < n.seq; ++t) {
          double sum = 0;
          for (int64_t d = 0; d < n.dim; ++d) sum += At(qkv, n, s, b, h, 0, d) * scale * At(qkv, n, t, b, h, 1, d);
          y.data[((b * n.heads + h) * n.seq + s) * n.seq + t] = static_cast<float>(sum);
        }
  return y;
}

Tensor RefValAtt(const Tensor& qkv, const Tensor& att, const Dims& n) {
  Tensor y({n.seq, n.batch, n.heads * n.dim});
  for (int64_t s = 0; s < n.seq; ++s)
    for (int64_t b = 0; b < n.batch; ++b)
      for (int64_t h = 0; h < n.heads; ++h)
        for (int64_t d = 0; d < n.dim; ++d) {
          double sum = 0;
          for (int64_t t = 0; t < n.seq; ++t)
            sum += static_cast<double>(att.data[((b * n.heads + h) * n.seq + s) * n.seq + t]) * At(qkv, n, t, b, h, 2, d);
          y.data[(s * n.batch + b) * n.heads * n.dim + h * n.dim + d] = static_cast<float>(sum);
        }
  return y;
}

}  // namespace

TEST_CASE("interleaved_matmul_selfatt_qk and _valatt follow MXNet's interleaved layout", "[ops][attention]") {
  for (const Dims n : {Dims{5, 3, 2, 4}, Dims{7, 1, 3, 2}, Dims{4, 2, 1, 6}}) {
    INFO("seq " << n.seq << ", batch " << n.batch << ", heads " << n.heads << ", head_dim " << n.dim);
    const Tensor qkv = RandomTensor({n.seq, n.batch, 3 * n.heads * n.dim}, 720);
    const std::string heads = std::to_string(n.heads);
    GraphBuilder qk;
    qk.Output(qk.Op("_contrib_interleaved_matmul_selfatt_qk", "qk", {{"heads", heads}}, {qk.Variable("qkv")}));
    ExpectClose(Run(qk, {qkv}).at(0), RefQk(qkv, n), "qk");
    const Tensor att = RandomTensor({n.batch * n.heads, n.seq, n.seq}, 721, 0.f, 1.f);
    GraphBuilder va;
    va.Output(va.Op("_contrib_interleaved_matmul_selfatt_valatt", "va", {{"heads", heads}},
                    {va.Variable("qkv"), va.Variable("att")}));
    ExpectClose(Run(va, {qkv, att}).at(0), RefValAtt(qkv, att, n), "valatt");
  }
}

TEST_CASE("interleaved attention refuses shapes that do not split into heads", "[ops][attention]") {
  GraphBuilder qk;
  qk.Output(qk.Op("_contrib_interleaved_matmul_selfatt_qk", "qk", {{"heads", "4"}}, {qk.Variable("qkv")}));
  ExpectMessage(FailureOf([&] { Run(qk, {RandomTensor({3, 2, 18}, 1)}); }), "qk", {"heads (4)"});
  GraphBuilder va;
  va.Output(va.Op("_contrib_interleaved_matmul_selfatt_valatt", "va", {{"heads", "2"}},
                  {va.Variable("qkv"), va.Variable("att")}));
  ExpectMessage(FailureOf([&] { Run(va, {RandomTensor({3, 2, 12}, 1), RandomTensor({4, 3, 2}, 2)}); }), "va",
                {"attention", "(4, 3, 3)"});
}

TEST_CASE("_contrib_div_sqrt_dim divides by the square root of the last dimension", "[ops][attention]") {
  const Tensor x = RandomTensor({2, 3, 7}, 722);
  Tensor want = x;
  for (float& v : want.data) v = static_cast<float>(v / std::sqrt(7.0));
  ExpectClose(RunUnary("_contrib_div_sqrt_dim", {}, x), want, "div_sqrt_dim");
}
