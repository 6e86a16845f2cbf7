// tile and repeat against numpy-style index-by-index references.
#include <algorithm>
#include <optional>

#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

// numpy.tile: reps and the input's shape lined up at their last axes, the shorter padded with 1s;
// output index i along axis d reads input index i mod the input's size there.
Tensor RefTile(const Tensor& x, const std::vector<int64_t>& reps) {
  const size_t ndim = std::max(x.shape.size(), reps.size());
  Shape in(ndim - x.shape.size(), 1), r(ndim - reps.size(), 1);
  in.insert(in.end(), x.shape.begin(), x.shape.end());
  r.insert(r.end(), reps.begin(), reps.end());
  Shape out;
  for (size_t d = 0; d < ndim; ++d) out.push_back(in[d] * r[d]);
  Tensor y(out);
  const auto in_strides = Strides(in);
  for (int64_t i = 0; i < y.size(); ++i) {
    const auto idx = Unravel(i, out);
    int64_t at = 0;
    for (size_t d = 0; d < ndim; ++d) at += (idx[d] % in[d]) * in_strides[d];
    y.data[i] = x.data[at];
  }
  return y;
}

// numpy.repeat: output index i along the axis reads input index i / repeats; no axis: the flat input.
Tensor RefRepeat(const Tensor& x, int64_t repeats, std::optional<int64_t> axis) {
  const Shape in = axis ? x.shape : Shape{x.size()};
  const int64_t a = axis ? (*axis < 0 ? *axis + static_cast<int64_t>(in.size()) : *axis) : 0;
  Shape out = in;
  out[a] *= repeats;
  Tensor y(out);
  const auto in_strides = Strides(in);
  for (int64_t i = 0; i < y.size(); ++i) {
    auto idx = Unravel(i, out);
    idx[a] /= repeats;
    int64_t at = 0;
    for (size_t d = 0; d < in.size(); ++d) at += idx[d] * in_strides[d];
    y.data[i] = x.data[at];
  }
  return y;
}

std::string TupleText(const std::vector<int64_t>& values) {
  std::string text = "(";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
  return text + (values.size() == 1 ? ",)" : ")");
}

}  // namespace

TEST_CASE("tile: reps shorter, longer and as long as the data's rank, empty reps", "[ops][tile]") {
  struct Case {
    Shape x;
    std::vector<int64_t> reps;
  };
  const std::vector<Case> cases = {
      {{2, 3, 4}, {2}},                // shorter: the last axis
      {{2, 3, 4}, {3, 1}},             // shorter: a middle axis
      {{2, 3, 4, 5}, {2, 3, 2, 2}},    // every axis
      {{3, 4}, {2, 1, 3}},             // longer: a new leading axis
      {{1, 5, 3, 4}, {20, 1, 1, 1, 1}},  // YOLOv3's boxes, one copy per class
      {{7}, {1}},                      // nothing repeated
      {{2, 3}, {}},                    // "()": the data itself
  };
  unsigned seed = 700;
  for (const Case& c : cases) {
    const Tensor x = RandomTensor(c.x, seed++);
    const std::string reps = TupleText(c.reps);
    ExpectClose(RunUnary("tile", {{"reps", reps}}, x), RefTile(x, c.reps), "tile " + ShapeStr(c.x) + " reps " + reps,
                0.0);
  }
}

TEST_CASE("tile refuses missing or non-positive reps, naming the node", "[ops][tile]") {
  const Tensor x = RandomTensor({2, 3}, 710);
  ExpectMessage(FailureOf([&] { RunUnary("tile", {}, x); }), "op0", {"reps"});
  ExpectMessage(FailureOf([&] { RunUnary("tile", {{"reps", "(2, 0)"}}, x); }), "op0", {"reps", "at least 1"});
  ExpectMessage(FailureOf([&] { RunUnary("tile", {{"reps", "(-1,)"}}, x); }), "op0", {"reps", "at least 1"});
  // A product past int64 is refused, not wrapped into a small shape that would "succeed".
  ExpectMessage(FailureOf([&] { RunUnary("tile", {{"reps", "(4611686018427387904, 4)"}}, x); }), "op0",
                {"overflows int64"});
}

TEST_CASE("repeat: each axis, negative axes, no axis (flattened), one repeat, 1-D data", "[ops][repeat]") {
  const Tensor x = RandomTensor({2, 3, 4}, 720);
  for (int64_t axis : {0, 1, 2, -1, -2, -3}) {
    const std::string what = "repeat axis " + std::to_string(axis);
    ExpectClose(RunUnary("repeat", {{"repeats", "3"}, {"axis", std::to_string(axis)}}, x), RefRepeat(x, 3, axis), what,
                0.0);
  }
  ExpectClose(RunUnary("repeat", {{"repeats", "2"}}, x), RefRepeat(x, 2, std::nullopt), "repeat, no axis", 0.0);
  ExpectClose(RunUnary("repeat", {{"repeats", "2"}, {"axis", "None"}}, x), RefRepeat(x, 2, std::nullopt),
              "repeat, axis None", 0.0);
  ExpectClose(RunUnary("repeat", {{"repeats", "1"}, {"axis", "1"}}, x), x, "repeat once", 0.0);
  const Tensor v = RandomTensor({5}, 721);
  ExpectClose(RunUnary("repeat", {{"repeats", "4"}, {"axis", "0"}}, v), RefRepeat(v, 4, 0), "repeat 1-D", 0.0);
  // YOLOv3's upsampling: twice along the width, then twice along the height.
  const Tensor m = RandomTensor({2, 3, 5, 6}, 722);
  GraphBuilder g;
  const int data = g.Variable("data");
  const int wide = g.Op("repeat", "up_w", {{"axis", "-1"}, {"repeats", "2"}}, {data});
  g.Output(g.Op("repeat", "up_h", {{"axis", "-2"}, {"repeats", "2"}}, {wide}));
  ExpectClose(Run(g, {m}).at(0), RefRepeat(RefRepeat(m, 2, -1), 2, -2), "repeat twice (upsampling)", 0.0);
}

TEST_CASE("repeat refuses missing or non-positive repeats and axes out of range, naming the node", "[ops][repeat]") {
  const Tensor x = RandomTensor({2, 3}, 730);
  ExpectMessage(FailureOf([&] { RunUnary("repeat", {{"axis", "0"}}, x); }), "op0", {"repeats"});
  ExpectMessage(FailureOf([&] { RunUnary("repeat", {{"repeats", "0"}}, x); }), "op0", {"repeats", "at least 1"});
  ExpectMessage(FailureOf([&] { RunUnary("repeat", {{"repeats", "2"}, {"axis", "2"}}, x); }), "op0",
                {"axis 2", "out of range"});
  ExpectMessage(FailureOf([&] { RunUnary("repeat", {{"repeats", "2"}, {"axis", "-3"}}, x); }), "op0",
                {"axis -3", "out of range"});
  for (const char* axis : {"1", "None"})
    ExpectMessage(FailureOf([&] { RunUnary("repeat", {{"repeats", "3074457345618258603"}, {"axis", axis}}, x); }),
                  "op0", {"overflows int64"});
}
