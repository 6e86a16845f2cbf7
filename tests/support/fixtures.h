// The MXNet fixtures made by scripts/make_fixtures.sh: where they are and how to read them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace quiver_test {

// $QUIVER_FIXTURES_DIR, else the directory configured at build time.
std::string FixturesDir();
// The parsed manifest.json, or null when the fixtures were not made.
nlohmann::json LoadManifest();
// True when the fixtures must exist (QUIVER_REQUIRE_FIXTURES=1, as CI sets): tests fail without them.
bool FixturesRequired();

std::vector<float> ReadF32(const std::string& path);
std::vector<int32_t> ReadI32(const std::string& path);

}  // namespace quiver_test
