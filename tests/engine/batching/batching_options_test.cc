#include "batching/batching_options.h"

#include <catch2/catch.hpp>

#include "common/error.h"

using namespace qv;

TEST_CASE("scheduling flags parse, and only they enable the request queue", "[batching]") {
  BatchingOptions o;
  REQUIRE_FALSE(o.enabled);
  REQUIRE_FALSE(o.Parse("device", "cpu"));
  REQUIRE_FALSE(o.enabled);
  REQUIRE(o.Parse("max_batch_size", "16"));
  REQUIRE(o.Parse("batch_timeout_us", "0"));
  REQUIRE(o.Parse("instances", "2"));
  REQUIRE(o.Parse("max_queue", "5"));
  REQUIRE(o.enabled);
  REQUIRE(o.max_batch_size == 16);
  REQUIRE(o.batch_timeout_us == 0);
  REQUIRE(o.instances == 2);
  REQUIRE(o.max_queue == 5);
  REQUIRE(o.Parse("instances", "auto"));
  REQUIRE(o.instances == 0);  // the scheduler picks by device
}

TEST_CASE("out-of-range scheduling flags fail naming the flag and the range", "[batching]") {
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"max_batch_size", "0"}, {"max_batch_size", "x"}, {"batch_timeout_us", "-1"}, {"instances", "0"},
           {"max_queue", "1.5"}, {"instances", ""}}) {
    BatchingOptions o;
    try {
      o.Parse(key, value);
      FAIL(key << " = '" << value << "' was accepted");
    } catch (const Error& e) {
      REQUIRE(e.status() == Status::kInvalidArgument);
      REQUIRE(std::string(e.what()).find(key) != std::string::npos);
      REQUIRE(std::string(e.what()).find("between") != std::string::npos);
    }
  }
}

TEST_CASE("runs are padded to a power of two or max_batch_size", "[batching]") {
  BatchingOptions o;
  o.max_batch_size = 12;
  REQUIRE(o.PaddedRows(1) == 1);
  REQUIRE(o.PaddedRows(3) == 4);
  REQUIRE(o.PaddedRows(5) == 8);
  REQUIRE(o.PaddedRows(9) == 12);
  REQUIRE(o.PaddedRows(12) == 12);
  REQUIRE(o.PaddedRows(20) == 20);  // a request larger than max_batch_size runs alone, as it is
}
