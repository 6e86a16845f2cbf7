// The `precision` flag of QvCreateCachedOpEx and QvCachedOpGetPrecision: accepted values, refusals
// that name what is missing, and what each precision computes on the tiny model. The numerics of each
// bfloat16 kernel are checked against a reference in tests/engine/backends/cpu/cpu_precision_test.cc.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "quiver/c_api.h"
#include "support/failure_checks.h"
#include "support/tiny_model.h"

using namespace quiver_test;

namespace {

std::string PrecisionOf(QvCachedOpHandle op) {
  const char* name = nullptr;
  REQUIRE(QvCachedOpGetPrecision(op, &name) == QV_OK);
  REQUIRE(name != nullptr);
  return name;
}

// What "auto" resolves to on this machine: "bfloat16" exactly when the CPU runs it natively.
std::string AutoPrecision() {
  const QvCachedOpHandle op = CreateTinyModel(1, {{"precision", "auto"}});
  const std::string name = PrecisionOf(op);
  FreeTinyModel(op);
  return name;
}

}  // namespace

TEST_CASE("float32 is the default precision and is exact to itself when asked for by name", "[capi][precision]") {
  const QvCachedOpHandle plain = CreateTinyModel(1);
  const QvCachedOpHandle named = CreateTinyModel(1, {{"precision", "float32"}});
  CHECK(PrecisionOf(plain) == "float32");
  CHECK(PrecisionOf(named) == "float32");
  QvNDArrayHandle x = MakeRandomArray({2, 3, 9, 9}, 7);
  CHECK(RunSync(plain, x) == RunSync(named, x));
  QvNDArrayFree(x);
  FreeTinyModel(plain);
  FreeTinyModel(named);
}

TEST_CASE("auto resolves to a concrete precision the machine runs", "[capi][precision]") {
  const std::string resolved = AutoPrecision();
  CHECK((resolved == "bfloat16" || resolved == "float32"));
}

TEST_CASE("bfloat16 runs where the CPU has it and is refused, naming the instructions, where not",
          "[capi][precision]") {
  TinyParams params = MakeTinyParams();
  QvCachedOpHandle op = nullptr;
  const int status = TryCreateCachedOp(TinyModelJson(), params, {{"precision", "bfloat16"}}, 1, &op);
  if (AutoPrecision() == "float32") {
    CHECK(status == QV_ERR_UNSUPPORTED);
    CHECK(std::string(QvGetLastError()).find("avx512_bf16") != std::string::npos);
    CHECK(op == nullptr);
    return;
  }
  REQUIRE(status == QV_OK);
  CHECK(PrecisionOf(op) == "bfloat16");
  // A softmax output moves by at most half the largest change of a logit (its Jacobian's rows sum to
  // 2 p (1 - p) <= 1/2 in absolute value); the tiny model's logits, of order 1, move by a few bfloat16
  // roundings (2^-8 relative each) through two convolutions and the classifier: well inside 0.05.
  const QvCachedOpHandle exact = CreateTinyModel(1);
  QvNDArrayHandle x = MakeRandomArray({4, 3, 12, 12}, 11);
  const std::vector<float> got = RunSync(op, x), want = RunSync(exact, x);
  REQUIRE(got.size() == want.size());
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) worst = std::max(worst, static_cast<double>(std::fabs(got[i] - want[i])));
  CHECK(worst > 0);  // computed in another precision: two float32 ops give identical bits
  CHECK(worst < 0.05);
  QvNDArrayFree(x);
  FreeTinyModel(exact);
  REQUIRE(QvFreeCachedOp(op) == QV_OK);
}

TEST_CASE("precision values outside the four names, and int8 on a model without int8 calibration, fail clearly",
          "[capi][precision]") {
  TinyParams params = MakeTinyParams();
  QvCachedOpHandle op = nullptr;
  for (const char* bad : {"bf16", "fp32", "float16", "", "BFLOAT16"}) {
    INFO("precision = '" << bad << "'");
    EXPECT_QV_FAILURE(TryCreateCachedOp(TinyModelJson(), params, {{"precision", bad}}, 1, &op),
                      STATUSES(QV_ERR_INVALID_ARGUMENT), "precision", "float32, bfloat16, int8, auto");
    CHECK(op == nullptr);
  }
  EXPECT_QV_FAILURE(TryCreateCachedOp(TinyModelJson(), params, {{"precision", "int8"}}, 1, &op),
                    STATUSES(QV_ERR_INVALID_ARGUMENT), "int8", "calibration");
  CHECK(op == nullptr);
}

TEST_CASE("QvCachedOpGetPrecision refuses null arguments", "[capi][precision]") {
  const char* name = nullptr;
  EXPECT_QV_FAILURE(QvCachedOpGetPrecision(nullptr, &name), STATUSES(QV_ERR_INVALID_ARGUMENT), "null");
  const QvCachedOpHandle op = CreateTinyModel(1);
  EXPECT_QV_FAILURE(QvCachedOpGetPrecision(op, nullptr), STATUSES(QV_ERR_INVALID_ARGUMENT), "null");
  FreeTinyModel(op);
}

// Run alone by CTest (capi.precision_without_bf16) with ONEDNN_MAX_CPU_ISA=AVX512_CORE_VNNI, which hides
// the bfloat16 instructions from oneDNN as a CPU without them would.
TEST_CASE("with bfloat16 instructions hidden, bfloat16 is refused and auto picks float32", "[.no_bf16]") {
  const char* isa = std::getenv("ONEDNN_MAX_CPU_ISA");
  if (isa == nullptr || std::string(isa) != "AVX512_CORE_VNNI")
    FAIL("run with ONEDNN_MAX_CPU_ISA=AVX512_CORE_VNNI (ctest -R capi.precision_without_bf16 does)");
  TinyParams params = MakeTinyParams();
  QvCachedOpHandle op = nullptr;
  EXPECT_QV_FAILURE(TryCreateCachedOp(TinyModelJson(), params, {{"precision", "bfloat16"}}, 1, &op),
                    STATUSES(QV_ERR_UNSUPPORTED), "avx512_bf16", "ONEDNN_MAX_CPU_ISA");
  CHECK(op == nullptr);
  CHECK(AutoPrecision() == "float32");
}
