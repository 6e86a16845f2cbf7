// Replays the checked-in seeds and every input that once broke a fuzz target (tests/fuzz/regressions/,
// one directory per target) through the same target code the fuzzers run, on every test run.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/fuzz_targets.h"

namespace fs = std::filesystem;

namespace {

using Target = std::string (*)(const uint8_t*, size_t);

// Runs `target` on every file under tests/fuzz/<kind>/<name>/ and returns how many there were.
size_t ReplayDirectory(const std::string& kind, const std::string& name, Target target) {
  const fs::path dir = fs::path(QUIVER_SOURCE_DIR) / "tests" / "fuzz" / kind / name;
  size_t count = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (!entry.is_regular_file() || entry.path().filename().string()[0] == '.') continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    INFO("input: " << entry.path().string());
    CHECK(target(bytes.data(), bytes.size()) == "");
    ++count;
  }
  return count;
}

// `has_seeds`: the target's seeds are checked in (the .params seeds are generated instead). Every
// target has a regression file: a folder found empty means the replay lost its inputs, not that all passed.
void Replay(const std::string& name, Target target, bool has_seeds) {
  if (has_seeds) CHECK(ReplayDirectory("seeds", name, target) > 0);
  CHECK(ReplayDirectory("regressions", name, target) > 0);
}

}  // namespace

TEST_CASE("fuzz corpus replay: symbol JSON", "[fuzz]") { Replay("symbol_json", quiver_fuzz::FuzzSymbolJson, true); }

TEST_CASE("fuzz corpus replay: .params bytes", "[fuzz]") { Replay("params", quiver_fuzz::FuzzParams, false); }

TEST_CASE("fuzz corpus replay: graphs with fuzzed shapes", "[fuzz]") {
  Replay("graph_shapes", quiver_fuzz::FuzzGraphShapes, true);
}

TEST_CASE("fuzz corpus replay: cached-op flags", "[fuzz]") {
  Replay("cached_op_flags", quiver_fuzz::FuzzCachedOpFlags, true);
}
