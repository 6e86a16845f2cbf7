// gather_nd against an index-by-index reference (negative indices wrap, fractions truncate as MXNet's
// int(v + d) % d) and its out-of-range error; shape_array's values for several ranks.
#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

Tensor RunGatherND(const Tensor& data, const Tensor& indices) {
  GraphBuilder g;
  g.Output(g.Op("gather_nd", "op0", {}, {g.Variable("data"), g.Variable("indices")}));
  return Run(g, {data, indices}).at(0);
}

// out[y..., rest...] = data[wrap(indices[0, y...]), ..., wrap(indices[M-1, y...]), rest...].
Tensor RefGatherND(const Tensor& data, const Tensor& indices) {
  const int64_t m = indices.shape[0], positions = indices.size() / m;
  Shape out(indices.shape.begin() + 1, indices.shape.end());
  int64_t slice = 1;
  for (size_t d = m; d < data.shape.size(); ++d) {
    out.push_back(data.shape[d]);
    slice *= data.shape[d];
  }
  Tensor y(out);
  const auto strides = Strides(data.shape);
  for (int64_t p = 0; p < positions; ++p) {
    int64_t at = 0;
    for (int64_t j = 0; j < m; ++j) {
      const int64_t dim = data.shape[j];
      int64_t v = static_cast<int64_t>(indices.data[j * positions + p] + static_cast<float>(dim)) % dim;
      at += v * strides[j];
    }
    for (int64_t e = 0; e < slice; ++e) y.data[p * slice + e] = data.data[at + e];
  }
  return y;
}

}  // namespace

TEST_CASE("gather_nd: whole, partial and element indexing with negative and fractional indices", "[ops][gather_nd]") {
  const Tensor data = RandomTensor({3, 4, 5}, 3);
  struct Case {
    Shape indices;
    std::vector<float> values;
  };
  const std::vector<Case> cases = {
      {{1, 4}, {0, 2, -1, -3}},                                // rows of axis 0
      {{2, 2, 3}, {0, 1, 2, -1, 0, 1, 3, -4, 0, 1.5f, 2, 2.9f}},  // (2, 3) positions of (axis 0, axis 1)
      {{3, 5}, {0, 1, 2, 2, -3, 0, 1, 2, 3, -1, 4, 0, 1, -5, 2}},  // single elements
  };
  for (const Case& c : cases) {
    Tensor idx(c.indices);
    idx.data = c.values;
    ExpectClose(RunGatherND(data, idx), RefGatherND(data, idx), "indices " + ShapeStr(c.indices), 0);
  }
}

TEST_CASE("gather_nd: an index out of range fails the run, naming the axis", "[ops][gather_nd]") {
  const Tensor data = RandomTensor({3, 4}, 1);
  Tensor idx({2, 1});
  idx.data = {1, 4};
  ExpectMessage(FailureOf([&] { RunGatherND(data, idx); }), "op0", {"out of bounds", "axis 1", "size 4"});
  idx.data = {-4, 0};
  ExpectMessage(FailureOf([&] { RunGatherND(data, idx); }), "op0", {"out of bounds", "axis 0"});
  Tensor too_many({3, 1});
  ExpectMessage(FailureOf([&] { RunGatherND(data, too_many); }), "op0", {"index 3 axes"});
}

TEST_CASE("shape_array: the input's shape, whatever its values", "[ops][shape_array]") {
  for (const Shape& s : {Shape{7}, Shape{2, 3}, Shape{1, 3, 5, 2}}) {
    Tensor want({static_cast<int64_t>(s.size())});
    for (size_t d = 0; d < s.size(); ++d) want.data[d] = static_cast<float>(s[d]);
    ExpectClose(RunUnary("shape_array", {}, RandomTensor(s, 2)), want, "shape " + ShapeStr(s), 0);
  }
}
