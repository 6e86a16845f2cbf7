// The symbol dictionary the fuzzers mutate with names every operator the registry accepts, every
// attribute an operator or graph pass reads, and every name the MXNet subgraph expander branches on.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ops/op.h"

namespace {

const std::string kSource = QUIVER_SOURCE_DIR;

// The dictionary's tokens, unescaped as libFuzzer reads them ("\"nodes\"" is the token "nodes" in quotes).
std::set<std::string> DictionaryTokens() {
  std::ifstream in(kSource + "/tests/fuzz/dict/symbol.dict");
  REQUIRE(in);
  std::set<std::string> tokens;
  for (std::string line; std::getline(in, line);) {
    if (line.size() < 2 || line.front() != '"' || line.back() != '"') continue;
    std::string token;
    for (size_t i = 1; i + 1 < line.size(); ++i) {
      if (line[i] == '\\' && i + 2 < line.size()) ++i;
      token += line[i];
    }
    tokens.insert(token);
  }
  return tokens;
}

bool Listed(const std::set<std::string>& tokens, const std::string& name) {
  return tokens.count(name) == 1 || tokens.count('"' + name + '"') == 1;
}

std::string Read(const std::filesystem::path& file) {
  std::ifstream in(file);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The sources of the operators and graph passes: what they read through Attrs decides their branches.
std::vector<std::filesystem::path> AttributeReaders() {
  std::vector<std::filesystem::path> files;
  for (const char* dir : {"/engine/ops", "/engine/graph"})
    for (const auto& entry : std::filesystem::directory_iterator(kSource + dir))
      if (entry.path().extension() == ".cc" || entry.path().extension() == ".h") files.push_back(entry.path());
  REQUIRE(files.size() > 50);
  return files;
}

}  // namespace

TEST_CASE("the fuzz dictionary lists every registered operator", "[fuzz]") {
  const std::set<std::string> tokens = DictionaryTokens();
  for (const std::string& op : qv::ListOps()) {
    INFO("operator " << op << " is missing from tests/fuzz/dict/symbol.dict");
    CHECK(Listed(tokens, op));
  }
  for (const auto& [alias, op] : qv::ListAliases()) {
    INFO("alias " << alias << " (of " << op << ") is missing from tests/fuzz/dict/symbol.dict");
    CHECK(Listed(tokens, alias));
  }
}

TEST_CASE("the fuzz dictionary lists every attribute the operators and graph passes read", "[fuzz]") {
  const std::set<std::string> tokens = DictionaryTokens();
  const std::regex getter(
      R"re(\b(Has|GetString|Require|GetInt|RequireInt|GetFloat|GetBool|GetTuple|GetFloatTuple|GetFloat32Tuple|GetOptionalTuple)\(\s*"([^"]+)")re");
  size_t seen = 0;
  for (const auto& file : AttributeReaders()) {
    const std::string text = Read(file);
    for (std::sregex_iterator m(text.begin(), text.end(), getter), end; m != end; ++m, ++seen) {
      INFO("attribute " << (*m)[2] << " (read in " << file.filename().string()
                        << ") is missing from tests/fuzz/dict/symbol.dict");
      CHECK(Listed(tokens, (*m)[2]));
    }
  }
  CHECK(seen > 100);  // the pattern still matches how operators read their attributes
}

TEST_CASE("the fuzz dictionary lists every name the MXNet subgraph expander branches on", "[fuzz]") {
  const std::set<std::string> tokens = DictionaryTokens();
  const std::string text = Read(kSource + "/engine/graph/mxnet_subgraphs.cc");
  const std::regex name(R"re("([A-Za-z_][A-Za-z0-9_]*)")re");
  size_t seen = 0;
  for (std::sregex_iterator m(text.begin(), text.end(), name), end; m != end; ++m, ++seen) {
    INFO("name " << (*m)[1] << " (in mxnet_subgraphs.cc) is missing from tests/fuzz/dict/symbol.dict");
    CHECK(Listed(tokens, (*m)[1]));
  }
  CHECK(seen > 30);
}
