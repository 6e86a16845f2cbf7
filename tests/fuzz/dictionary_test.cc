// The symbol dictionary the fuzzers mutate with names every operator the registry accepts.
#include <catch2/catch.hpp>
#include <fstream>
#include <set>
#include <string>

#include "ops/op.h"

TEST_CASE("the fuzz dictionary lists every registered operator", "[fuzz]") {
  std::ifstream in(std::string(QUIVER_SOURCE_DIR) + "/tests/fuzz/dict/symbol.dict");
  REQUIRE(in);
  std::set<std::string> entries;
  for (std::string line; std::getline(in, line);)
    if (line.size() >= 2 && line.front() == '"' && line.back() == '"') entries.insert(line.substr(1, line.size() - 2));
  for (const std::string& op : qv::ListOps()) {
    INFO("operator " << op << " is missing from tests/fuzz/dict/symbol.dict");
    CHECK(entries.count(op) == 1);
  }
  for (const auto& [alias, op] : qv::ListAliases()) {
    INFO("alias " << alias << " (of " << op << ") is missing from tests/fuzz/dict/symbol.dict");
    CHECK(entries.count(alias) == 1);
  }
}
