// Checks the reference operators themselves (tests/support/reference_ops.h) on cases small enough to
// work out by hand, so that the [ops] tests compare the runtime against something known to be right.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "support/reference_ops.h"

using qv_ref::Tensor;

namespace {

void ExpectValues(const Tensor& got, const qv_ref::Shape& shape, const std::vector<float>& want) {
  REQUIRE(got.shape == shape);
  REQUIRE(got.data.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i);
    CHECK(got.data[i] == Approx(want[i]).margin(1e-6));
  }
}

// 1, 2, ..., n as a tensor of this shape.
Tensor Iota(const qv_ref::Shape& shape) {
  Tensor t(shape);
  for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = static_cast<float>(i + 1);
  return t;
}

}  // namespace

TEST_CASE("reference Convolution on hand-computed cases", "[reference]") {
  const Tensor x = Iota({1, 1, 3, 3});
  const Tensor ones({1, 1, 2, 2}, {1, 1, 1, 1});
  qv_ref::ConvParams p;
  p.kernel_h = p.kernel_w = 2;
  ExpectValues(qv_ref::Convolution(x, ones, nullptr, p), {1, 1, 2, 2}, {12, 16, 24, 28});

  p.pad_h = p.pad_w = 1;
  p.stride_h = p.stride_w = 2;
  const Tensor bias({1}, {0.5f});
  ExpectValues(qv_ref::Convolution(x, ones, &bias, p), {1, 1, 2, 2}, {1.5f, 5.5f, 11.5f, 28.5f});

  qv_ref::ConvParams dilated;
  dilated.kernel_h = dilated.kernel_w = 2;
  dilated.dilate_h = dilated.dilate_w = 2;
  ExpectValues(qv_ref::Convolution(x, ones, nullptr, dilated), {1, 1, 1, 1}, {1 + 3 + 7 + 9});

  const Tensor two_channels({1, 2, 1, 1}, {2, 3});
  qv_ref::ConvParams grouped;
  grouped.num_group = 2;
  ExpectValues(qv_ref::Convolution(two_channels, Tensor({2, 1, 1, 1}, {10, 100}), nullptr, grouped), {1, 2, 1, 1},
               {20, 300});
  ExpectValues(qv_ref::Convolution(two_channels, Tensor({2, 2, 1, 1}, {1, 2, 3, 4}), nullptr, qv_ref::ConvParams()),
               {1, 2, 1, 1}, {8, 18});

  // Asymmetric kernel and stride: 1x3 kernel, stride (2, 1) over a 3x3 image.
  qv_ref::ConvParams wide;
  wide.kernel_w = 3;
  wide.stride_h = 2;
  ExpectValues(qv_ref::Convolution(x, Tensor({1, 1, 1, 3}, {1, 0, -1}), nullptr, wide), {1, 1, 2, 1}, {-2, -2});
}

TEST_CASE("reference BatchNorm honours eps and fix_gamma", "[reference]") {
  const Tensor x({1, 2, 1, 1}, {1, 2});
  const Tensor gamma({2}, {2, 3}), beta({2}, {0.5f, -1}), mean({2}, {1, 0}), var({2}, {3, 15});
  ExpectValues(qv_ref::BatchNorm(x, gamma, beta, mean, var, 1.0f, false), {1, 2, 1, 1}, {0.5f, 0.5f});
  ExpectValues(qv_ref::BatchNorm(x, gamma, beta, mean, var, 1.0f, true), {1, 2, 1, 1}, {0.5f, -0.5f});
  // 2-D data (N, C).
  ExpectValues(qv_ref::BatchNorm(Tensor({2, 2}, {1, 2, 3, 4}), gamma, beta, mean, var, 1.0f, false), {2, 2},
               {0.5f, 0.5f, 2.5f, 2.0f});
}

TEST_CASE("reference Activation functions", "[reference]") {
  const Tensor x({4}, {-3, -1, 0, 1});
  ExpectValues(qv_ref::Activation(x, "relu"), {4}, {0, 0, 0, 1});
  ExpectValues(qv_ref::Activation(x, "sigmoid"), {4},
               {1 / (1 + std::exp(3.0f)), 1 / (1 + std::exp(1.0f)), 0.5f, 1 / (1 + std::exp(-1.0f))});
  ExpectValues(qv_ref::Activation(x, "tanh"), {4}, {std::tanh(-3.0f), std::tanh(-1.0f), 0, std::tanh(1.0f)});
  ExpectValues(qv_ref::Activation(x, "softrelu"), {4},
               {std::log(1 + std::exp(-3.0f)), std::log(1 + std::exp(-1.0f)), std::log(2.0f), std::log(1 + std::exp(1.0f))});
  ExpectValues(qv_ref::Activation(x, "softsign"), {4}, {-0.75f, -0.5f, 0, 0.5f});
}

TEST_CASE("reference Pooling: max, avg, conventions and divisors", "[reference]") {
  const Tensor x = Iota({1, 1, 3, 3});
  qv_ref::PoolParams p;
  p.kernel_h = p.kernel_w = 2;
  ExpectValues(qv_ref::Pooling(x, p), {1, 1, 2, 2}, {5, 6, 8, 9});

  p.is_max = false;
  p.stride_h = p.stride_w = 2;
  ExpectValues(qv_ref::Pooling(x, p), {1, 1, 1, 1}, {3});
  // "full": ceil gives a second window per axis that runs past the (unpadded) input; MXNet cuts it at
  // the input's end before taking its area, so the divisor is 2 or 1, not 4.
  p.full_convention = true;
  ExpectValues(qv_ref::Pooling(x, p), {1, 1, 2, 2}, {3, 4.5f, 7.5f, 9});
  p.count_include_pad = false;
  ExpectValues(qv_ref::Pooling(x, p), {1, 1, 2, 2}, {3, 4.5f, 7.5f, 9});

  // Padded: kernel 3, stride 2, pad 1 over 3x3, both conventions give 2x2 and windows of 3x3 in the
  // padded input; with padding counted the divisor is 9, else the 4 real elements.
  qv_ref::PoolParams q;
  q.is_max = false;
  q.kernel_h = q.kernel_w = 3;
  q.stride_h = q.stride_w = 2;
  q.pad_h = q.pad_w = 1;
  ExpectValues(qv_ref::Pooling(x, q), {1, 1, 2, 2}, {12.f / 9, 16.f / 9, 24.f / 9, 28.f / 9});
  q.count_include_pad = false;
  ExpectValues(qv_ref::Pooling(x, q), {1, 1, 2, 2}, {3, 4, 6, 7});

  // 4x4 with kernel 3, stride 2, pad 1, "full": 3x3 outputs; the last window starts at 3 and is cut at
  // 4 + 1 = 5, so it spans 2 padded rows/cols (1 real).
  const Tensor y = Iota({1, 1, 4, 4});
  q.full_convention = true;
  q.count_include_pad = true;
  const Tensor full_incl = qv_ref::Pooling(y, q);
  REQUIRE(full_incl.shape == qv_ref::Shape{1, 1, 3, 3});
  CHECK(full_incl.data[0] == Approx(14.0 / 9));  // rows 0-1, cols 0-1 of a 3x3 window
  CHECK(full_incl.data[2] == Approx((4 + 8) / 6.0));  // rows [-1, 2) x cols [3, 5): a 3x2 window, 2 real
  CHECK(full_incl.data[8] == Approx(16.0 / 4));
  q.count_include_pad = false;
  const Tensor full_excl = qv_ref::Pooling(y, q);
  CHECK(full_excl.data[0] == Approx(14.0 / 4));
  CHECK(full_excl.data[8] == Approx(16.0));
  q.is_max = true;
  ExpectValues(qv_ref::Pooling(y, q), {1, 1, 3, 3}, {6, 8, 8, 14, 16, 16, 14, 16, 16});

  qv_ref::PoolParams g;
  g.global_pool = true;
  g.kernel_h = g.kernel_w = 1;  // ignored
  g.pad_h = 1;                  // ignored
  ExpectValues(qv_ref::Pooling(x, g), {1, 1, 1, 1}, {9});
  g.is_max = false;
  ExpectValues(qv_ref::Pooling(x, g), {1, 1, 1, 1}, {5});
  CHECK(qv_ref::PooledSize(7, 3, 0, 2, false) == 3);
  CHECK(qv_ref::PooledSize(8, 3, 0, 2, false) == 3);
  CHECK(qv_ref::PooledSize(8, 3, 0, 2, true) == 4);
}

TEST_CASE("reference FullyConnected with and without flatten", "[reference]") {
  const Tensor w({2, 3}, {1, 0, 0, 0, 1, 1});
  const Tensor b({2}, {10, 20});
  ExpectValues(qv_ref::FullyConnected(Tensor({2, 3}, {1, 2, 3, 4, 5, 6}), w, &b, true), {2, 2}, {11, 25, 14, 31});
  ExpectValues(qv_ref::FullyConnected(Tensor({2, 1, 3}, {1, 2, 3, 4, 5, 6}), w, nullptr, true), {2, 2}, {1, 5, 4, 11});
  ExpectValues(qv_ref::FullyConnected(Tensor({1, 2, 3}, {1, 2, 3, 4, 5, 6}), w, &b, false), {1, 2, 2},
               {11, 25, 14, 31});
}

TEST_CASE("reference Flatten, BroadcastAdd and Concat", "[reference]") {
  ExpectValues(qv_ref::Flatten(Iota({2, 3, 2})), {2, 6}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  ExpectValues(qv_ref::BroadcastAdd(Tensor({2, 1}, {1, 2}), Tensor({3}, {10, 20, 30})), {2, 3},
               {11, 21, 31, 12, 22, 32});
  ExpectValues(qv_ref::BroadcastAdd(Tensor({1, 2, 1}, {1, 2}), Tensor({2, 1, 2}, {10, 20, 30, 40})), {2, 2, 2},
               {11, 21, 12, 22, 31, 41, 32, 42});
  ExpectValues(qv_ref::Concat({Tensor({2, 1}, {1, 2}), Tensor({2, 2}, {3, 4, 5, 6})}, 1), {2, 3},
               {1, 3, 4, 2, 5, 6});
  ExpectValues(qv_ref::Concat({Tensor({1, 2}, {1, 2}), Tensor({2, 2}, {3, 4, 5, 6})}, 0), {3, 2},
               {1, 2, 3, 4, 5, 6});
  ExpectValues(qv_ref::Concat({Tensor({1, 2}, {1, 2}), Tensor({1, 1}, {3})}, -1), {1, 3}, {1, 2, 3});
}

TEST_CASE("reference softmax and SoftmaxOutput", "[reference]") {
  const float l3 = std::log(3.0f);
  ExpectValues(qv_ref::Softmax(Tensor({1, 2}, {0, l3}), -1, 1.0f), {1, 2}, {0.25f, 0.75f});
  ExpectValues(qv_ref::Softmax(Tensor({1, 2}, {0, 2 * l3}), 1, 2.0f), {1, 2}, {0.25f, 0.75f});
  ExpectValues(qv_ref::Softmax(Tensor({2, 1}, {0, l3}), 0, 1.0f), {2, 1}, {0.25f, 0.75f});
  // (1, 2, 2): values arranged so that each normalisation gives a distinct answer.
  const Tensor x({1, 2, 2}, {0, l3, l3, 0});
  ExpectValues(qv_ref::SoftmaxOutput(x, false, false), {1, 2, 2}, {0.125f, 0.375f, 0.375f, 0.125f});
  ExpectValues(qv_ref::SoftmaxOutput(x, true, false), {1, 2, 2}, {0.25f, 0.75f, 0.75f, 0.25f});
  ExpectValues(qv_ref::SoftmaxOutput(x, false, true), {1, 2, 2}, {0.25f, 0.75f, 0.75f, 0.25f});
  const Tensor y({1, 2, 2}, {0, l3, 0, 0});
  ExpectValues(qv_ref::SoftmaxOutput(y, true, false), {1, 2, 2}, {0.5f, 0.75f, 0.5f, 0.25f});
  ExpectValues(qv_ref::SoftmaxOutput(y, false, true), {1, 2, 2}, {0.25f, 0.75f, 0.5f, 0.5f});
}
