// The flag table (cached_op_options.h): its defaults are the options' defaults, and the message for an
// unknown flag names every flag.
#include "cachedop/cached_op_options.h"

#include <catch2/catch.hpp>

#include "common/error.h"

using namespace qv;

TEST_CASE("each flag's documented default is what the options hold without it", "[cachedop]") {
  const CachedOpOptions none = CachedOpOptions::Parse({}, true);
  for (const CachedOpFlag& flag : CachedOpFlags()) {
    INFO("flag " << flag.name);
    if (std::string(flag.default_value).empty()) continue;  // none: data_shapes, data_types
    const CachedOpOptions given = CachedOpOptions::Parse({{flag.name, flag.default_value}}, true);
    CHECK(given.device == none.device);
    CHECK(given.static_shape == none.static_shape);
    CHECK(given.max_inflight == none.max_inflight);
    CHECK(given.max_plans == none.max_plans);
    CHECK(given.precision == none.precision);
    CHECK(given.backend.step_recording == none.backend.step_recording);
    CHECK(given.batching.max_batch_size == none.batching.max_batch_size);
    CHECK(given.batching.batch_timeout_us == none.batching.batch_timeout_us);
    CHECK(given.batching.instances == none.batching.instances);
    CHECK(given.batching.max_queue == none.batching.max_queue);
  }
}

TEST_CASE("an unknown flag is refused, naming every known one", "[cachedop]") {
  try {
    CachedOpOptions::Parse({{"max_batch", "4"}}, true);
    FAIL("an unknown flag was taken");
  } catch (const Error& e) {
    CHECK(e.status() == Status::kInvalidArgument);
    const std::string message = e.what();
    CHECK_THAT(message, Catch::Contains("unknown flag 'max_batch'"));
    for (const CachedOpFlag& flag : CachedOpFlags()) CHECK_THAT(message, Catch::Contains(flag.name));
  }
}
