// topk against a plain reference on distinct values (every axis, axis None, each ret_typ, k <= 0),
// and against MXNet 1.9.1's own outputs where values tie: its CPU kernel sorts without stability.
#include <algorithm>
#include <numeric>
#include <string>
#include <random>

#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

// Distinct values in a seeded random order.
Tensor DistinctTensor(const Shape& shape, unsigned seed) {
  Tensor x(shape);
  std::iota(x.data.begin(), x.data.end(), 0.f);
  for (float& v : x.data) v = v * 0.25f - 7.f;
  std::mt19937 rng(seed);
  std::shuffle(x.data.begin(), x.data.end(), rng);
  return x;
}

struct Ref {
  Tensor values, indices, mask;
};

// The k largest (or smallest) along `axis` ("None": the flattened data), by a full sort of each row.
Ref RefTopK(const Tensor& x, const std::string& axis, int64_t k, bool ascend) {
  const bool flat = axis == "None";
  Shape view = flat ? Shape{x.size()} : x.shape;
  const int64_t given = flat ? 0 : std::stoll(axis);
  const int64_t a = given < 0 ? given + static_cast<int64_t>(view.size()) : given;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < a; ++d) outer *= view[d];
  for (size_t d = a + 1; d < view.size(); ++d) inner *= view[d];
  const int64_t n = view[a];
  if (k <= 0) k = n;
  Shape sel = view;
  sel[a] = k;
  Ref r{Tensor(sel), Tensor(sel), Tensor(x.shape)};
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      std::vector<int64_t> order(n);
      std::iota(order.begin(), order.end(), 0);
      auto at = [&](int64_t j) { return x.data[(o * n + j) * inner + i]; };
      std::sort(order.begin(), order.end(), [&](int64_t p, int64_t q) { return ascend ? at(p) < at(q) : at(p) > at(q); });
      for (int64_t j = 0; j < k; ++j) {
        r.values.data[(o * k + j) * inner + i] = at(order[j]);
        r.indices.data[(o * k + j) * inner + i] = static_cast<float>(order[j]);
        r.mask.data[(o * n + order[j]) * inner + i] = 1.f;
      }
    }
  return r;
}

std::vector<Tensor> RunTopK(const AttrMap& attrs, const Tensor& x, int outputs) {
  GraphBuilder g;
  const int op = g.Op("topk", "op0", attrs, {g.Variable("data")});
  for (int o = 0; o < outputs; ++o) g.Output({op, o});
  return Run(g, {x});
}

}  // namespace

TEST_CASE("topk: every axis and None, each ret_typ, ascending and descending", "[ops][topk]") {
  const Tensor x = DistinctTensor({3, 5, 4}, 7);
  for (const char* axis : {"0", "1", "-1", "None"})
    for (int64_t k : {1, 3, 0})
      for (bool ascend : {false, true}) {
        const int64_t n = std::string(axis) == "None" ? x.size() : x.shape[(std::stoll(axis) + 3) % 3];
        if (k > n) continue;
        const std::string what = std::string("axis ") + axis + " k " + std::to_string(k) + (ascend ? " ascending" : "");
        RunCase(what, [&] {
          const Ref want = RefTopK(x, axis, k, ascend);
          AttrMap attrs = {{"axis", axis}, {"k", std::to_string(k)}, {"is_ascend", ascend ? "True" : "False"}};
          attrs["ret_typ"] = "both";
          const auto both = RunTopK(attrs, x, 2);
          ExpectClose(both.at(0), want.values, what + " values", 0);
          ExpectClose(both.at(1), want.indices, what + " indices", 0);
          attrs["ret_typ"] = "value";
          ExpectClose(RunTopK(attrs, x, 1).at(0), want.values, what + " value", 0);
          attrs.erase("ret_typ");  // indices by default
          attrs["dtype"] = "int64";
          ExpectClose(RunTopK(attrs, x, 1).at(0), want.indices, what + " indices (int64)", 0);
          attrs["ret_typ"] = "mask";
          ExpectClose(RunTopK(attrs, x, 1).at(0), want.mask, what + " mask", 0);
        });
      }
}

TEST_CASE("topk: ties come out in MXNet 1.9.1's CPU order", "[ops][topk]") {
  // Indices printed by mx.nd.topk(..., ret_typ='indices') on MXNet 1.9.1's CPU: x = [(7 i) % 5 for i < 40]
  // (k 10 takes std::sort's path, k 3 std::partial_sort's) and [(13 i) % 6 for i < 300] (partial sort).
  struct Case {
    int64_t n, mul, mod, k;
    bool ascend;
    std::vector<float> want;
  };
  const std::vector<Case> cases = {
      {40, 7, 5, 10, false, {17, 2, 37, 22, 7, 32, 27, 12, 9, 24}},
      {40, 7, 5, 3, true, {10, 5, 0}},
      {300, 13, 6, 20, false, {35, 71, 89, 53, 5, 47, 77, 113, 11, 59, 95, 23, 101, 17, 107, 83, 119, 65, 41, 29}},
      {300, 13, 6, 20, true, {18, 24, 54, 84, 12, 78, 30, 108, 0, 42, 90, 60, 96, 48, 102, 36, 114, 72, 66, 6}},
  };
  for (const Case& c : cases) {
    Tensor x({c.n});
    for (int64_t i = 0; i < c.n; ++i) x.data[i] = static_cast<float>((i * c.mul) % c.mod);
    Tensor want({c.k});
    want.data = c.want;
    const AttrMap attrs = {{"k", std::to_string(c.k)}, {"is_ascend", c.ascend ? "True" : "False"}};
    ExpectClose(RunTopK(attrs, x, 1).at(0), want, "n " + std::to_string(c.n) + " k " + std::to_string(c.k), 0);
  }
}

TEST_CASE("topk: a NaN ranks above +inf, and the other values keep their order", "[ops][topk]") {
  Tensor x({5});
  x.data = {1.f, NAN, 3.f, -INFINITY, 2.f};
  Tensor want({3});
  want.data = {1.f, 2.f, 4.f};
  ExpectClose(RunTopK({{"k", "3"}}, x, 1).at(0), want, "descending", 0);
  want.data = {3.f, 0.f, 4.f};
  ExpectClose(RunTopK({{"k", "3"}, {"is_ascend", "True"}}, x, 1).at(0), want, "ascending", 0);
}

TEST_CASE("topk: bad attributes name the node and the problem", "[ops][topk]") {
  const Tensor x = DistinctTensor({2, 3}, 1);
  ExpectMessage(FailureOf([&] { RunTopK({{"k", "4"}}, x, 1); }), "op0", {"k 4", "3 elements"});
  ExpectMessage(FailureOf([&] { RunTopK({{"axis", "2"}}, x, 1); }), "op0", {"axis 2", "out of range"});
  ExpectMessage(FailureOf([&] { RunTopK({{"ret_typ", "sorted"}}, x, 1); }), "op0", {"ret_typ", "sorted"});
  ExpectMessage(FailureOf([&] { RunTopK({{"dtype", "uint8"}}, x, 1); }), "op0", {"dtype uint8"});
}

TEST_CASE("argsort: the indices of every element along an axis, ascending unless told otherwise", "[ops][topk][argsort]") {
  const Tensor x = DistinctTensor({3, 5, 4}, 11);
  for (const char* axis : {"0", "1", "-1", "None"})
    for (const char* ascend : {"", "True", "False"}) {
      const std::string what = std::string("axis ") + axis + " is_ascend '" + ascend + "'";
      RunCase(what, [&] {
        AttrMap attrs = {{"axis", axis}};
        if (*ascend) attrs["is_ascend"] = ascend;
        const Ref want = RefTopK(x, axis, 0, std::string(ascend) != "False");
        ExpectClose(RunUnary("argsort", attrs, x), want.indices, what, 0);
      });
    }
  // topk's own attributes mean nothing to argsort: it always returns every index.
  const Ref want = RefTopK(x, "-1", 0, true);
  ExpectClose(RunUnary("argsort", {{"k", "1"}, {"ret_typ", "value"}}, x), want.indices, "topk attributes ignored", 0);
}

TEST_CASE("argsort: ties come out in MXNet 1.9.1's CPU order", "[ops][topk][argsort]") {
  // mx.nd.argsort(x, is_ascend=False) on MXNet 1.9.1's CPU, x = [(7 i) % 5 for i < 40] (a full std::sort,
  // as topk with k 40): its first ten indices, the same as topk's with k 10 above.
  Tensor x({40});
  for (int64_t i = 0; i < 40; ++i) x.data[i] = static_cast<float>((i * 7) % 5);
  const Tensor got = RunUnary("argsort", {{"is_ascend", "False"}}, x);
  Tensor first({10});
  first.data.assign(got.data.begin(), got.data.begin() + 10);
  Tensor want({10});
  want.data = {17, 2, 37, 22, 7, 32, 27, 12, 9, 24};
  ExpectClose(first, want, "descending ties", 0);
}
