// Pad against a plain reference: each output element's source index per axis (constant outside the
// input, edge clamped, reflect mirrored without repeating the edge: numpy's "reflect"), on 4-D and 5-D
// data; MXNet's documented edge example; the error messages.
#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

int64_t RefSource(const std::string& mode, int64_t i, int64_t size) {
  if (i >= 0 && i < size) return i;
  if (mode == "constant") return -1;
  if (mode == "edge") return i < 0 ? 0 : size - 1;
  return i < 0 ? -i : 2 * (size - 1) - i;
}

Tensor RefPad(const Tensor& x, const std::string& mode, const std::vector<int64_t>& pad, float value) {
  Shape out = x.shape;
  for (size_t d = 0; d < out.size(); ++d) out[d] += pad[2 * d] + pad[2 * d + 1];
  Tensor y(out);
  const std::vector<int64_t> in_strides = Strides(x.shape);
  for (int64_t i = 0; i < y.size(); ++i) {
    const std::vector<int64_t> idx = Unravel(i, out);
    int64_t at = 0;
    bool constant = false;
    for (size_t d = 0; d < out.size(); ++d) {
      const int64_t from = RefSource(mode, idx[d] - pad[2 * d], x.shape[d]);
      constant = constant || from < 0;
      at += from * in_strides[d];
    }
    y.data[i] = constant ? value : x.data[at];
  }
  return y;
}

std::string TupleOf(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + ")";
}

Tensor RunPad(const Tensor& x, const std::string& mode, const std::vector<int64_t>& pad, float value,
              const std::string& op = "Pad") {
  AttrMap attrs = {{"mode", mode}, {"pad_width", TupleOf(pad)}};
  if (value != 0) attrs["constant_value"] = std::to_string(value);
  return RunUnary(op, attrs, x);
}

}  // namespace

TEST_CASE("Pad matches the reference: constant, edge, reflect on 4-D and 5-D data", "[ops][pad]") {
  std::mt19937 rng(51);
  const Tensor x4 = qv_test::Random({2, 3, 4, 5}, &rng), x5 = qv_test::Random({1, 2, 3, 4, 5}, &rng);
  const std::vector<std::vector<int64_t>> pads4 = {{0, 0, 0, 0, 1, 1, 2, 2}, {0, 0, 0, 0, 3, 0, 0, 4},
                                                   {0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 2, 3, 1, 0}};
  const std::vector<std::vector<int64_t>> pads5 = {{0, 0, 0, 0, 1, 2, 0, 3, 2, 1}, {0, 0, 0, 0, 2, 2, 3, 3, 4, 4}};
  for (const std::string mode : {"constant", "edge", "reflect"}) {
    for (const auto& pad : pads4)
      ExpectClose(RunPad(x4, mode, pad, 1.5f), RefPad(x4, mode, pad, 1.5f), mode + " " + TupleOf(pad), 0);
    for (const auto& pad : pads5)
      ExpectClose(RunPad(x5, mode, pad, 0.f), RefPad(x5, mode, pad, 0.f), mode + " 5-D " + TupleOf(pad), 0);
  }
  // MXNet's lower-case alias.
  const std::vector<int64_t> pad = {0, 0, 0, 0, 1, 1, 1, 1};
  ExpectClose(RunPad(x4, "reflect", pad, 0.f, "pad"), RefPad(x4, "reflect", pad, 0.f), "pad (alias)", 0);
}

TEST_CASE("Pad reproduces MXNet's documented edge example", "[ops][pad]") {
  const Tensor x(Shape{1, 1, 2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor want(Shape{1, 1, 4, 5}, {1, 1, 2, 3, 3, 1, 1, 2, 3, 3, 4, 4, 5, 6, 6, 4, 4, 5, 6, 6});
  ExpectClose(RunPad(x, "edge", {0, 0, 0, 0, 1, 1, 1, 1}, 0.f), want, "edge example", 0);
}

TEST_CASE("Pad refuses what MXNet refuses, naming the node", "[ops][pad]") {
  auto failure = [](const AttrMap& attrs, const Shape& shape) {
    return FailureOf([&] { RunUnary("Pad", attrs, Tensor(shape)); });
  };
  ExpectMessage(failure({{"mode", "constant"}, {"pad_width", "(0, 1, 0, 0, 1, 1, 1, 1)"}}, {1, 2, 3, 4}), "op0",
                {"batch or channel axis"});
  ExpectMessage(failure({{"mode", "constant"}, {"pad_width", "(0, 0, 0, 0, 1, 1)"}}, {1, 2, 3, 4}), "op0",
                {"2 values per axis"});
  ExpectMessage(failure({{"mode", "reflect"}, {"pad_width", "(0, 0, 0, 0, 3, 0, 1, 1)"}}, {1, 2, 3, 4}), "op0",
                {"reflect padding", "smaller than axis 2"});
  ExpectMessage(failure({{"mode", "constant"}, {"pad_width", "(0, 0, 1, 1)"}}, {2, 3}), "op0", {"4-D and 5-D"});
  ExpectMessage(failure({{"mode", "wrap"}, {"pad_width", "(0, 0, 0, 0, 1, 1, 1, 1)"}}, {1, 2, 3, 4}), "op0",
                {"mode 'wrap'"});
  ExpectMessage(failure({{"mode", "edge"}}, {1, 2, 3, 4}), "op0", {"pad_width"});
}
