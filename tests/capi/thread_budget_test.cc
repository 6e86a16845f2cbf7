// QvSetNumThreads / QvGetNumThreads: the process's compute-thread budget, set and read at any time.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "quiver/c_api.h"
#include "support/tiny_model.h"

TEST_CASE("the thread budget is set and read at any time, and ops run under any budget", "[capi]") {
  int start = 0;
  REQUIRE(QvGetNumThreads(&start) == QV_OK);
  REQUIRE(start >= 1);
  const QvCachedOpHandle op = quiver_test::CreateTinyModel(/*thread_safe=*/1);
  QvNDArrayHandle input = quiver_test::MakeRandomArray({4, 3, 16, 16}, 7);
  const std::vector<float> want = quiver_test::RunSync(op, input);
  for (int threads : {1, 3, start}) {
    INFO("budget " << threads);
    REQUIRE(QvSetNumThreads(threads) == QV_OK);
    int now = 0;
    REQUIRE(QvGetNumThreads(&now) == QV_OK);
    CHECK(now == threads);
    const std::vector<float> got = quiver_test::RunSync(op, input);
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(want[i]).margin(1e-6));
  }
  QvNDArrayFree(input);
  CHECK(QvSetNumThreads(0) == QV_ERR_INVALID_ARGUMENT);
  CHECK_THAT(std::string(QvGetLastError()), Catch::Contains("thread budget of 0"));
  CHECK(QvSetNumThreads(4097) == QV_ERR_INVALID_ARGUMENT);
  CHECK(QvGetNumThreads(nullptr) == QV_ERR_INVALID_ARGUMENT);
  int now = 0;
  REQUIRE(QvGetNumThreads(&now) == QV_OK);
  CHECK(now == start);
  quiver_test::FreeTinyModel(op);
}
