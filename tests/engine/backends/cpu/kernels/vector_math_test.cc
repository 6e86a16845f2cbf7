// The vectorized exp, sigmoid and tanh (vector_math.h) against libm in double, over the range the RNN
// gates and softmax meet and past where they saturate, in runs whose lengths leave a remainder after
// every vector width.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <vector>

#include "backends/cpu/kernels/vector_math.h"

namespace {

// Values from -lo to +hi: dense near 0, where tanh switches formula (0.625) and where the clamps act.
std::vector<float> Sweep() {
  std::vector<float> x;
  for (int i = -4000; i <= 4000; ++i) x.push_back(i * 0.003f);
  for (float v : {0.625f, -0.625f, 0.62499f, 0.62501f, 1e-6f, -1e-6f, 1e-30f, 0.f, -0.f, 9.f, 20.f, -20.f, 87.f, 88.f,
                  -87.f, -88.f, 100.f, -100.f})
    x.push_back(v);
  x.push_back(7.f);  // 8019 values: a remainder for 4, 8 and 16 lanes
  return x;
}

// Within 1e-6 of the value, or 1e-30 where the value is below float's normal range.
void CheckClose(const std::vector<float>& x, const std::vector<float>& got, double (*want)(double), const char* what) {
  for (size_t i = 0; i < x.size(); ++i) {
    const double w = want(x[i]);
    INFO(what << "(" << x[i] << ") = " << got[i] << ", want " << w);
    REQUIRE(std::abs(got[i] - w) <= 1e-6 * std::abs(w) + 1e-30);
  }
}

double Exp(double v) { return v < -87 ? 0 : std::exp(std::min(v, 88.0)); }
double Sigmoid(double v) { return 1 / (1 + std::exp(-v)); }
double Tanh(double v) { return std::tanh(v); }

}  // namespace

TEST_CASE("Vector math: exp, sigmoid and tanh within 1e-6 of libm over every range", "[cpu][rnn][softmax]") {
  const std::vector<float> x = Sweep();
  std::vector<float> y(x.size());
  qv::cpu::ExpLoop(x.data(), y.data(), static_cast<int64_t>(x.size()));
  CheckClose(x, y, Exp, "exp (0 below -87, e^88 above 88)");
  qv::cpu::SigmoidLoop(x.data(), y.data(), static_cast<int64_t>(x.size()));
  CheckClose(x, y, Sigmoid, "sigmoid");
  qv::cpu::TanhLoop(x.data(), y.data(), static_cast<int64_t>(x.size()));
  CheckClose(x, y, Tanh, "tanh");
  for (float v : y) REQUIRE(std::abs(v) <= 1.f);
}

TEST_CASE("Vector math: the largest magnitude, wherever it lies, NaNs left out", "[cpu][int8]") {
  std::vector<float> x = Sweep();
  const auto n = static_cast<int64_t>(x.size());
  REQUIRE(qv::cpu::LargestMagnitude(x.data(), 0) == 0.f);
  REQUIRE(qv::cpu::LargestMagnitude(x.data(), n) == 100.f);
  // The largest at every position: each lane of the running maxima, and the remainder after them.
  for (float& v : x) v = std::min(std::abs(v), 1.f) * (v < 0 ? -1.f : 1.f);
  for (int64_t at : {int64_t{0}, int64_t{5}, int64_t{15}, int64_t{16}, int64_t{31}, n - 20, n - 1}) {
    const float kept = x[at];
    x[at] = -3.5f;
    INFO("at " << at);
    REQUIRE(qv::cpu::LargestMagnitude(x.data(), n) == 3.5f);
    x[at] = kept;
  }
  for (int64_t at : {int64_t{0}, int64_t{7}, n - 1}) x[at] = std::nanf("");
  REQUIRE(qv::cpu::LargestMagnitude(x.data(), n) == 1.f);
  REQUIRE(qv::cpu::LargestMagnitude(x.data(), 1) == 0.f);
}
