// Crop (MXNet's legacy spatial crop) against an index-by-index reference.
#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

// The (h, w) window of 4-D x at (oy, ox).
Tensor RefCrop(const Tensor& x, int64_t h, int64_t w, int64_t oy, int64_t ox) {
  Tensor y({x.shape[0], x.shape[1], h, w});
  const auto strides = Strides(x.shape);
  for (int64_t i = 0; i < y.size(); ++i) {
    const auto idx = Unravel(i, y.shape);
    y.data[i] = x.data[idx[0] * strides[0] + idx[1] * strides[1] + (idx[2] + oy) * strides[2] + (idx[3] + ox) * strides[3]];
  }
  return y;
}

Tensor RunCropLike(const Tensor& x, const Tensor& like, const AttrMap& attrs) {
  GraphBuilder g;
  AttrMap a = attrs;
  a["num_args"] = "2";
  g.Output(g.Op("Crop", "op0", a, {g.Variable("data"), g.Variable("crop_like")}));
  return Run(g, {x, like}).at(0);
}

}  // namespace

TEST_CASE("Crop: to h_w or to crop_like's size, at an offset or centred", "[ops][crop]") {
  const Tensor x = RandomTensor({2, 3, 9, 8}, 1100);
  ExpectClose(RunUnary("Crop", {{"num_args", "1"}, {"h_w", "(4, 5)"}}, x), RefCrop(x, 4, 5, 0, 0), "h_w at (0, 0)", 0.0);
  ExpectClose(RunUnary("Crop", {{"num_args", "1"}, {"h_w", "(4, 5)"}, {"offset", "(2, 3)"}}, x), RefCrop(x, 4, 5, 2, 3),
              "h_w at (2, 3)", 0.0);
  // Centred: offsets (9 - 4) / 2 = 2 and (8 - 5) / 2 = 1, rounded down.
  ExpectClose(RunUnary("Crop", {{"num_args", "1"}, {"h_w", "(4, 5)"}, {"center_crop", "True"}}, x),
              RefCrop(x, 4, 5, 2, 1), "centred", 0.0);
  // An FCN-style decoder: the upsampled map cropped like the skip connection.
  ExpectClose(RunCropLike(x, Tensor({1, 1, 7, 6}), {{"offset", "(1, 1)"}}), RefCrop(x, 7, 6, 1, 1), "crop_like", 0.0);
  ExpectClose(RunCropLike(x, Tensor({5, 2, 7, 6}), {{"center_crop", "True"}}), RefCrop(x, 7, 6, 1, 1),
              "crop_like centred", 0.0);
}

TEST_CASE("Crop refuses windows that do not fit, naming the node", "[ops][crop]") {
  const Tensor x = RandomTensor({1, 2, 5, 5}, 1110);
  ExpectMessage(FailureOf([&] { RunUnary("Crop", {{"num_args", "1"}, {"h_w", "(6, 2)"}}, x); }), "op0", {"cannot crop"});
  ExpectMessage(FailureOf([&] { RunUnary("Crop", {{"num_args", "1"}, {"h_w", "(3, 3)"}, {"offset", "(3, 0)"}}, x); }),
                "op0", {"offset (3, 0)"});
  ExpectMessage(FailureOf([&] { RunUnary("Crop", {{"num_args", "3"}}, x); }), "op0", {"num_args"});
  ExpectMessage(FailureOf([&] { RunUnary("Crop", {{"num_args", "1"}, {"h_w", "(2, 2)"}}, RandomTensor({5, 5}, 1)); }),
                "op0", {"4-D"});
}
