#include "support/fixtures.h"

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace quiver_test {
namespace {

template <typename T>
std::vector<T> ReadRaw(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<T> out(bytes.size() / sizeof(T));
  std::copy(bytes.begin(), bytes.begin() + out.size() * sizeof(T), reinterpret_cast<char*>(out.data()));
  return out;
}

}  // namespace

std::string FixturesDir() {
  const char* env = std::getenv("QUIVER_FIXTURES_DIR");
  return env && *env ? env : QUIVER_FIXTURES_DIR;
}

nlohmann::json LoadManifest() {
  std::ifstream in(FixturesDir() + "/manifest.json");
  if (!in) return nullptr;
  return nlohmann::json::parse(in);
}

bool FixturesRequired() {
  const char* env = std::getenv("QUIVER_REQUIRE_FIXTURES");
  return env && std::string(env) == "1";
}

std::vector<float> ReadF32(const std::string& path) { return ReadRaw<float>(path); }
std::vector<int32_t> ReadI32(const std::string& path) { return ReadRaw<int32_t>(path); }

}  // namespace quiver_test
