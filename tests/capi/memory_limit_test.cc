// QUIVER_MEMORY_LIMIT caps the storage the runtime holds: allocations past it fail before they are
// tried, and plans holding a larger tensor are refused when compiled. The limit is read once per
// process, so this test is hidden from the default run and CTest runs it alone with
// QUIVER_MEMORY_LIMIT=64M (tests/CMakeLists.txt).
#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

#include "quiver/c_api.h"
#include "support/failure_checks.h"
#include "support/tiny_model.h"

using namespace quiver_test;

TEST_CASE("QUIVER_MEMORY_LIMIT=64M caps what the runtime holds", "[.memory_limit]") {
  const char* limit = std::getenv("QUIVER_MEMORY_LIMIT");
  if (limit == nullptr || std::string(limit) != "64M")
    FAIL("run with QUIVER_MEMORY_LIMIT=64M (ctest -R capi.memory_limit does)");
  const int64_t forty_mib[1] = {10 << 20};  // float32 elements
  QvNDArrayHandle first = nullptr, second = nullptr;
  REQUIRE(QvNDArrayCreate(forty_mib, 1, QV_CPU, 0, QV_FLOAT32, &first) == QV_OK);
  EXPECT_QV_FAILURE(QvNDArrayCreate(forty_mib, 1, QV_CPU, 0, QV_FLOAT32, &second), STATUSES(QV_ERR_OUT_OF_MEMORY),
                    "cannot allocate 41943040 bytes", "67108864");
  CHECK(second == nullptr);
  REQUIRE(QvNDArrayFree(first) == QV_OK);
  REQUIRE(QvNDArrayCreate(forty_mib, 1, QV_CPU, 0, QV_FLOAT32, &second) == QV_OK);  // room again
  QvNDArrayFree(second);

  // The tiny model at 4x3x1024x1024: a 48 MiB input fits, its first convolution's 128 MiB output not.
  TinyParams params = MakeTinyParams();
  QvCachedOpHandle op = nullptr;
  EXPECT_QV_FAILURE(TryCreateCachedOp(TinyModelJson(), params, {{"data_shapes", "data:(4,3,1024,1024)"}}, 1, &op),
                    STATUSES(QV_ERR_OUT_OF_MEMORY), "conv0", "(4, 8, 1024, 1024)", "67108864");
  CHECK(op == nullptr);
  LoadedModel model;  // small models still load and run
  model.CheckStillWorks();
}
