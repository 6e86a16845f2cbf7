// Pooling: max and avg over MXNet's conventions, padding divisors and global pooling against
// support/reference_ops.h; sum pooling, and "full"-convention windows lying wholly past the input, where
// MXNet writes -FLT_MAX (max) or 0 (avg, sum), against a reference written here.
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

// True when some output window of this pooling lies wholly outside the real input (possible in "full"
// mode): MXNet then gives -FLT_MAX (max) or 0 / NaN (avg), cases these tests leave alone.
bool HasEmptyWindow(const Shape& x, const PoolParams& p) {
  if (p.global_pool) return false;
  const int64_t oh = qv_ref::PooledSize(x[2], p.kernel_h, p.pad_h, p.stride_h, p.full_convention);
  const int64_t ow = qv_ref::PooledSize(x[3], p.kernel_w, p.pad_w, p.stride_w, p.full_convention);
  const int64_t last_h = (oh - 1) * p.stride_h - p.pad_h, last_w = (ow - 1) * p.stride_w - p.pad_w;
  return last_h >= x[2] || last_w >= x[3];
}

AttrMap PoolAttrs(const PoolParams& p, bool spell_defaults) {
  AttrMap a;
  a["pool_type"] = p.is_max ? "max" : "avg";
  if (p.global_pool) {
    a["global_pool"] = "True";
    a["kernel"] = "(1, 1)";  // MXNet ignores the kernel of a global pool
    return a;
  }
  a["kernel"] = Tuple({p.kernel_h, p.kernel_w});
  if (spell_defaults || p.stride_h != 1 || p.stride_w != 1) a["stride"] = Tuple({p.stride_h, p.stride_w});
  if (spell_defaults || p.pad_h != 0 || p.pad_w != 0) a["pad"] = Tuple({p.pad_h, p.pad_w});
  if (spell_defaults || p.full_convention) a["pooling_convention"] = p.full_convention ? "full" : "valid";
  if (spell_defaults || !p.count_include_pad) a["count_include_pad"] = p.count_include_pad ? "True" : "False";
  if (spell_defaults) a["global_pool"] = "False";
  return a;
}

std::string DescribePool(const PoolParams& p) {
  std::ostringstream os;
  os << (p.is_max ? "max" : "avg");
  if (p.global_pool) {
    os << " global";
    return os.str();
  }
  os << " kernel " << Tuple({p.kernel_h, p.kernel_w}) << " stride " << Tuple({p.stride_h, p.stride_w}) << " pad "
     << Tuple({p.pad_h, p.pad_w}) << (p.full_convention ? " full" : " valid")
     << (p.is_max ? "" : (p.count_include_pad ? " count_include_pad" : " exclude_pad"));
  return os.str();
}

}  // namespace

TEST_CASE("Pooling matches MXNet's rules (conventions, padding divisors, global)", "[ops][pooling]") {
  struct Window {
    int64_t kh, kw, sh, sw, ph, pw;
  };
  const std::vector<Window> windows = {
      {2, 2, 2, 2, 0, 0}, {3, 3, 2, 2, 1, 1}, {3, 3, 1, 1, 1, 1}, {3, 3, 2, 2, 0, 0},
      {2, 3, 1, 2, 1, 1}, {5, 5, 3, 3, 2, 2}, {3, 2, 3, 2, 0, 1},
  };
  const std::vector<Shape> shapes = {{1, 3, 7, 9}, {3, 5, 8, 8}, {1, 13, 9, 7}, {3, 16, 12, 10}};
  unsigned seed = 400;
  int run = 0, skipped = 0;
  for (const Window& win : windows) {
    for (int is_max = 0; is_max < 2; ++is_max) {
      for (int full = 0; full < 2; ++full) {
        for (int include = 0; include < 2; ++include) {
          if (is_max && !include) continue;  // count_include_pad only matters to avg
          PoolParams p;
          p.is_max = is_max;
          p.full_convention = full;
          p.count_include_pad = include;
          p.kernel_h = win.kh;
          p.kernel_w = win.kw;
          p.stride_h = win.sh;
          p.stride_w = win.sw;
          p.pad_h = win.ph;
          p.pad_w = win.pw;
          for (const Shape& shape : shapes) {
            if (HasEmptyWindow(shape, p)) {
              ++skipped;
              continue;
            }
            ++run;
            const bool spell = (seed % 2) == 0;
            const std::string what = "Pooling x=" + ShapeStr(shape) + " " + DescribePool(p);
            RunCase(what, [&] {
              Net net(seed++);
              const int data = net.g.Variable("data");
              net.g.Output(net.g.Op("Pooling", "pool0", PoolAttrs(p, spell), {data}));
              const Tensor x = qv_test::Random(shape, &net.rng, -3.0f, 3.0f);
              const std::vector<Tensor> out = RunSingleInput(net, x);
              REQUIRE(out.size() == 1);
              ExpectClose(out[0], qv_ref::Pooling(x, p), what);
            });
          }
        }
      }
    }
  }
  INFO("ran " << run << " pooling cases, skipped " << skipped << " with windows wholly in the padding");
  CHECK(run > 80);

  const std::vector<Shape> global_shapes = {{1, 3, 7, 9}, {3, 16, 5, 5}, {3, 13, 1, 1}, {1, 5, 1, 8}};
  for (const Shape& shape : global_shapes) {
    for (int is_max = 0; is_max < 2; ++is_max) {
      PoolParams p;
      p.global_pool = true;
      p.is_max = is_max;
      const std::string what = "Pooling x=" + ShapeStr(shape) + " " + DescribePool(p);
      RunCase(what, [&] {
        Net net(seed++);
        const int data = net.g.Variable("data");
        net.g.Output(net.g.Op("Pooling", "pool0", PoolAttrs(p, false), {data}));
        const Tensor x = qv_test::Random(shape, &net.rng, -3.0f, 3.0f);
        const std::vector<Tensor> out = RunSingleInput(net, x);
        REQUIRE(out.size() == 1);
        ExpectClose(out[0], qv_ref::Pooling(x, p), what);
      });
    }
  }
}

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
  // Padding whose arithmetic leaves int64 is refused, not wrapped.
  ExpectMessage(FailureOf([&] {
                  RunUnary("Pooling", {{"kernel", "(9223372036854775807, 1)"}, {"pad", "(4611686018427387904, 0)"}}, x);
                }),
                "op0", {"overflows int64"});
}
